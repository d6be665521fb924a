// Shared by every page: the page's config, the JSON API with its CSRF token, messages to the
// person, the unlock dialog and the live-update stream.

export const config = JSON.parse(document.getElementById("page-config").textContent);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function csrfToken() {
  return document.querySelector('meta[name="csrf-token"]').content;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// GET or POST to the JSON API; errors become ApiError with the server's message.
export async function api(path, body = undefined) {
  const options = { headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.headers["X-CSRF-Token"] = csrfToken();
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiError(0, "the server cannot be reached");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, (data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

let toastTimer = null;
export function toast(message, kind = "error") {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 6000 : 2500);
}

// Run an API call for a control; show what went wrong.
export async function control(path, body = {}, what = "") {
  try {
    return await api(path, body);
  } catch (err) {
    if (err.status === 401) {
      setAuthorized(false);
      toast("The controls are locked: unlock them with the access token.");
    } else {
      toast(what ? `${what}: ${err.message}` : err.message);
    }
    return null;
  }
}

// ------------------------------------------------------------------ the lock
const authListeners = [];
export function onAuthorized(listener) {
  authListeners.push(listener);
  listener(config.authorized);
}

export function setAuthorized(value) {
  config.authorized = value;
  document.body.dataset.authorized = value ? "yes" : "no";
  const button = document.getElementById("lock-button");
  button.textContent = value ? "Controls unlocked" : "Unlock controls";
  button.className = `lock ${value ? "unlocked" : "locked"}`;
  for (const listener of authListeners) listener(value);
}

function setupLock() {
  const button = document.getElementById("lock-button");
  const dialog = document.getElementById("unlock-dialog");
  const form = document.getElementById("unlock-form");
  const error = document.getElementById("unlock-error");
  button.addEventListener("click", async () => {
    if (config.authorized) {
      if (window.confirm("Lock the controls in this browser?")) {
        await api("/api/logout", {}).catch(() => null);
        setAuthorized(false);
      }
      return;
    }
    error.hidden = true;
    dialog.showModal();
    document.getElementById("unlock-token").focus();
  });
  document.getElementById("unlock-cancel").addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = document.getElementById("unlock-token").value.trim();
    try {
      await api("/api/login", { token });
      form.reset();
      dialog.close();
      setAuthorized(true);
      toast("Controls unlocked", "ok");
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
  if (config.tokenRejected) toast("The access token in that link is wrong: the controls stay locked.");
}
setupLock();

// ------------------------------------------------------------------ live updates
// The server sends the full state on connect, then changes based on the previous revision.
// A change that does not follow on (a message was lost) makes the client reconnect for a full one.
export class LiveState {
  constructor({ onState, onStatus }) {
    this.onState = onState;
    this.onStatus = onStatus;
    this.state = null;
    this.rev = null;
    this.source = null;
    this.retryMs = 1000;
    this.timer = null;
    this.heard = Date.now();
    this.watchdog = null;
  }

  start(initial = null) {
    if (initial) {
      this.state = initial;
      this.onState(this.state, [], true);
    }
    this.connect();
    window.addEventListener("pagehide", () => this.stop());
    // A connection can die without either end noticing: after a silence, compare versions.
    const every = Math.max(250, Math.min(config.watchdogMs / 2, 15000));
    this.watchdog = setInterval(() => this.check(), every);
  }

  async check() {
    if (Date.now() - this.heard < config.watchdogMs || !this.state) return;
    try {
      const current = await api("/api/state");
      this.heard = Date.now();
      if (current.version !== this.state.version) this.connect();
    } catch (err) {
      this.onStatus("offline");
      this.connect();
    }
  }

  stop() {
    if (this.source) this.source.close();
    this.source = null;
    clearTimeout(this.timer);
  }

  connect() {
    this.stop();
    this.onStatus("connecting");
    const source = new EventSource("/events");
    this.source = source;
    source.addEventListener("open", () => {
      this.retryMs = 1000;
      this.onStatus("live");
    });
    source.addEventListener("state", (event) => this.receive(JSON.parse(event.data)));
    source.addEventListener("error", () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        // refused (e.g. too many viewers, server restarting): try again, more slowly each time
        this.onStatus("offline");
        this.timer = setTimeout(() => this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 15000);
      } else {
        this.onStatus("reconnecting");
      }
    });
  }

  receive(message) {
    this.heard = Date.now();
    if (message.full) {
      this.state = message.full;
      this.rev = message.rev;
      this.onStatus("live");
      this.onState(this.state, [], true);
      return;
    }
    if (this.rev === null || message.base !== this.rev) {
      this.connect(); // out of step: start again from a full snapshot
      return;
    }
    Object.assign(this.state, message.changed);
    this.rev = message.rev;
    this.onState(this.state, message.events || [], false);
  }
}

// ------------------------------------------------------------------ sound
let audio = null;
export function beep(severity) {
  try {
    audio = audio || new AudioContext();
    const tones = severity === "error" ? [880, 660, 880] : [660];
    let t = audio.currentTime;
    for (const frequency of tones) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.25, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + 0.18);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.2);
      t += 0.22;
    }
  } catch (err) {
    // no sound here: the banner is still there
  }
}

export function sideName(colour) {
  return colour === "white" ? "White" : colour === "black" ? "Black" : "—";
}
