// The table page's websocket, with reconnection: one socket for play, a ping to notice a dead
// one, and a growing pause between attempts. The page's state and what it does with a message
// are lent once by `bindLink`.

import { $ } from "./common.js";

let S, CODE, onMessage, clearPending, renderActions, renderConnection;

/** Lend this module the table page's state and handlers (once, before connecting). */
export function bindLink(page) {
  ({ S, CODE, onMessage, clearPending, renderActions, renderConnection } = page);
}

export const link = {
  ws: null,
  backoff: 500,
  retryTimer: null,
  pingTimer: null,
  lastMessage: 0,
  opened: false,
  stopped: false,

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(CODE)}`;
  },

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.ws) return;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.lastMessage = Date.now();
      const hello = { type: "hello", token: S.token };
      if (!S.token && S.watchName) hello.name = S.watchName;
      ws.send(JSON.stringify(hello));
      S.lastSent = "hello";
      this.startPing();
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.lastMessage = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && typeof msg === "object") onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      S.welcomed = false;
      clearPending();
      renderActions();
      renderConnection();
      this.retry(event);
    });
  },

  retry(event) {
    if (this.stopped) return;
    const delay = this.backoff;
    this.backoff = Math.min(5000, this.backoff * 2);
    const why = event && event.reason ? ` (${event.reason})` : "";
    showBanner(`${this.opened ? "Connection lost" : "Connecting"}${why}. Reconnecting…`);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  },

  /** Drop the socket and open a new one now (after taking a seat, or when the network returns). */
  /** Close and stay closed (the server refused us for good). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPing();
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    showBanner(null);
  },

  reconnectNow() {
    this.stopped = false;
    this.backoff = 500;
    const old = this.ws;
    this.ws = null;
    this.stopPing();
    if (old) old.close();
    this.connect();
  },

  /** Whether a message sent now reaches the table (the socket is open and the server said welcome). */
  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && S.welcomed;
  },

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    S.lastSent = msg.type;
    return true;
  },

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastMessage > 45000) {
        // Nothing heard for three pings: the connection is dead even if the browser has not noticed.
        const ws = this.ws;
        this.ws = null;
        this.stopPing();
        ws.close();
        S.welcomed = false;
        clearPending();
        renderActions();
        renderConnection();
        this.retry();
        return;
      }
      this.send({ type: "ping", t: Date.now() });
    }, 15000);
  },

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  },
};

export function showBanner(text) {
  const b = $("#banner");
  if (!text) {
    b.hidden = true;
    return;
  }
  b.textContent = text;
  b.hidden = false;
}
