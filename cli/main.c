#include <stdio.h>

#include "touche/touche.h"

int main(void) {
    printf("touche %s\n", tch_version());
    return 0;
}
