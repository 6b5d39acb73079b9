// Validates a glTF 2.0 file with the Khronos glTF validator (npm gltf-validator).
// Usage: node validate.js FILE. Exit 0 when the validator reports no error and no warning.
'use strict';
const fs = require('fs');
const validator = require('gltf-validator');

const file = process.argv[2];
validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {uri: file, maxIssues: 20})
  .then((report) => {
    const issues = report.issues;
    console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings`);
    for (const m of issues.messages) {
      if (m.severity <= 1) console.log(`  ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
    process.exit(issues.numErrors + issues.numWarnings > 0 ? 1 : 0);
  })
  .catch((error) => {
    console.error(`${file}: ${error}`);
    process.exit(2);
  });
