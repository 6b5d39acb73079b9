// The WebSocket of a live run (cli/live.c): the server sends one JSON frame per message,
// {"time", "energy", "poses": [x y z qw qx qy qz per body], "pairs": [as contacts.jsonl]}, at
// up to 60 Hz; the page sends text commands for the drag spring:
//   grab BODY LX LY LZ TX TY TZ   grab BODY at the point L (body frame), pulled towards T (world)
//   move TX TY TZ                 move the spring's end
//   release                       let go
export class LiveLink {
  constructor(url, handlers) {
    this.handlers = handlers;
    this.socket = new WebSocket(url);
    this.socket.addEventListener('open', () => handlers.status('connected'));
    this.socket.addEventListener('close', () => handlers.status('the run has ended (connection closed)'));
    this.socket.addEventListener('error', () => handlers.status('connection failed'));
    this.socket.addEventListener('message', (event) => {
      handlers.frame(JSON.parse(event.data));
    });
  }

  send(text) {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
  }
}
