// The bot protocol over a WebSocket: one request per message, one answer per message, matched
// by "id" (docs/protocol.md, docs/web.md).

export class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Client {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.onclose = () => {};
  }

  open() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.socket = socket;
      socket.addEventListener("open", () => resolve(this));
      socket.addEventListener("error", () => reject(new Error("cannot reach the server")));
      socket.addEventListener("message", (event) => this.receive(event.data));
      socket.addEventListener("close", (event) => {
        for (const { reject: fail } of this.pending.values()) {
          fail(new ProtocolError("closed", "the connection to the server was closed"));
        }
        this.pending.clear();
        this.onclose(event);
      });
    });
  }

  receive(text) {
    let answer;
    try {
      answer = JSON.parse(text);
    } catch (error) {
      return;
    }
    const waiting = this.pending.get(answer.id);
    if (!waiting) {
      return;
    }
    this.pending.delete(answer.id);
    if (answer.ok) {
      waiting.resolve(answer);
    } else {
      waiting.reject(new ProtocolError(answer.error.code, answer.error.message));
    }
  }

  ask(type, fields = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ProtocolError("closed", "not connected to the server"));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, type, ...fields }));
    });
  }
}
