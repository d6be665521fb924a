// The live page: the referee's board, dice, turn, score, moves, alerts, hints and controls,
// kept up to date by the live-update stream.

import { config, api, control, toast, el, LiveState, beep, onAuthorized, sideName } from "./common.js";
import { BoardView, diffPoints, dieSvg } from "./board.js";

const ALERT_TITLES = {
  "illegal-play": "Illegal play",
  "unfinished-play": "Play not finished",
  "dice-out-of-turn": "Dice out of turn",
  "board-changed": "Board changed",
  "position-unreadable": "Board unreadable",
  "not-settled": "Board not settled",
  "please-look": "Please look",
  "camera-moved": "Camera moved",
  "camera-lost": "Camera lost",
  "dice-disconnected": "Dice disconnected",
  "dice-tilt": "Cocked die",
  "checker-count": "Checker count",
  "point-misread": "Point misread",
  "checkers-unseen": "Checkers unseen",
  storage: "Storage",
};
const STATUS_TEXT = {
  waiting: "waiting for the play",
  partial: "playing…",
  played: "played",
  illegal: "ILLEGAL",
  unsure: "please look at the board",
};
const RESULT_NAMES = { 1: "single game", 2: "mars (gammon)", 3: "koks (backgammon)" };

const $ = (id) => document.getElementById(id);
const store = {
  get(key, fallback) {
    try { return localStorage.getItem(key) ?? fallback; } catch (err) { return fallback; }
  },
  set(key, value) {
    try { localStorage.setItem(key, value); } catch (err) { /* private mode */ }
  },
};

let state = null;
let preview = null; // the legal play under the pointer: {play, position}
let editing = null; // the position being corrected, while editing
let flipped = store.get("nardy.flip", "no") === "yes";
let sound = store.get("nardy.sound", "no") === "yes";
let shownAlerts = new Set();
let pendingDie = null;
let serverStatus = "connecting";
let profiles = [];

const board = new BoardView($("board"), { onPlace: editPlace });

// Each part of the page is redrawn only when what it shows changed (updates come several a second).
const drawn = {};
function changed(part, value) {
  const text = JSON.stringify(value);
  if (drawn[part] === text) return false;
  drawn[part] = text;
  return true;
}

// ================================================================== what the board shows
function boardPosition(s) {
  const turn = s.turn;
  if (turn && turn.after && (turn.status === "played" || turn.status === "illegal")) return turn.after;
  return s.position;
}

function numbering(s) {
  return (s.turn && s.turn.mover) || s.to_move || "white";
}

function renderBoard() {
  if (!state) return;
  if (editing) {
    const model = { position: editing, numbering: numbering(state), flipped, editing: true, cube: null };
    if (changed("board", model)) board.render(model);
    return;
  }
  const alertPoints = state.alerts.flatMap((a) => a.points || []);
  const model = {
    position: boardPosition(state),
    numbering: numbering(state),
    flipped,
    alertPoints,
    cube: cubeInUse() ? state.cube : null,
  };
  if (preview) {
    const mover = numbering(state);
    const { from, to } = diffPoints(state.position, preview.position, mover);
    Object.assign(model, { position: preview.position, from, to, caption: preview.play, alertPoints: [], cube: null });
  }
  if (changed("board", model)) board.render(model);
}

function cubeInUse() {
  const options = (state.match && state.match.options) || {};
  return options.cube !== false;
}

// ================================================================== alerts
function renderAlerts(events) {
  const box = $("alerts");
  const alerts = [...state.alerts].sort((a, b) => rank(b.severity) - rank(a.severity));
  box.replaceChildren(...alerts.map((a) => el("div", { class: `alert ${a.severity}`, dataset: { code: a.code } },
    el("span", { class: "alert-icon", "aria-hidden": "true", text: a.severity === "info" ? "i" : "!" }),
    el("span", { class: "alert-title", text: ALERT_TITLES[a.code] || a.code }),
    el("span", { class: "alert-text", text: a.text }))));
  box.hidden = alerts.length === 0;
  document.body.classList.toggle("has-error", alerts.some((a) => a.severity === "error"));
  const codes = new Set(alerts.map((a) => a.code));
  const fresh = alerts.filter((a) => !shownAlerts.has(a.code) && a.severity !== "info");
  if (sound && fresh.length && events !== null) beep(fresh.some((a) => a.severity === "error") ? "error" : "warning");
  shownAlerts = codes;
}

function rank(severity) {
  return { error: 3, warning: 2, info: 1 }[severity] || 0;
}

// ================================================================== turn, dice, score
function chip(colour) {
  return el("span", { class: `chip ${colour || "none"}`, "aria-hidden": "true" });
}

function renderTurn() {
  const box = $("turn");
  const s = state;
  const turn = s.turn;
  const parts = [];
  let line = null;
  box.className = "turn-banner";
  if (s.phase === "opening") {
    parts.push(el("span", { class: "what", text: "Opening throw" }));
    line = el("div", { class: "status-line", text: "Each player throws one die: the higher moves first. Manual entry: white's die first." });
  } else if (s.phase === "match-over" || s.phase === "game-over") {
    const r = s.result;
    if (r) {
      parts.push(chip(r.winner), el("span", { class: "who", text: sideName(r.winner) }),
        el("span", { class: "what", text: `wins ${r.points} point${r.points === 1 ? "" : "s"}` }));
      line = el("div", { class: "status-line", text: `${RESULT_NAMES[r.multiplier] || ""}${r.cube > 1 ? `, cube ${r.cube}` : ""}${r.name ? ` · ${r.name}` : ""}` });
    }
    if (s.phase === "match-over") {
      parts.push(el("span", { class: "what", text: "· match over" }));
    } else if (line) {
      line.append(" · the next throw starts game " + (s.match.game + 1));
    }
  } else if (turn) {
    parts.push(chip(turn.mover), el("span", { class: "who", text: sideName(turn.mover) }),
      el("span", { class: "what", text: "to play" }),
      el("span", { class: "roll", text: `${turn.roll[0]}-${turn.roll[1]}` }));
    const status = turn.status;
    box.classList.add(`status-${status}`);
    let text = STATUS_TEXT[status] || status;
    if (status === "played" && turn.play) text = `played ${turn.play} ✓`;
    if (status === "illegal") text = `ILLEGAL${turn.play ? ` (${turn.play})` : ""}: ${turn.reason || ""}`;
    if (turn.first_turn && status === "waiting") text += " · first turn";
    line = el("div", { class: "status-line", "data-testid": "turn-status", text });
  } else if (s.to_move) {
    parts.push(chip(s.to_move), el("span", { class: "who", text: sideName(s.to_move) }), el("span", { class: "what", text: "to throw" }));
    if (s.cube && s.cube.offered_by) {
      line = el("div", { class: "status-line", text: `${sideName(s.cube.offered_by)} doubles to ${s.cube.value * 2}: take or drop?` });
    }
  }
  const spaced = parts.flatMap((part, i) => (i ? [" ", part] : [part]));
  box.replaceChildren(el("div", { class: "turn-main" }, ...spaced), line);
}

function renderDice() {
  const s = state;
  const dice = s.dice || {};
  let values = null;
  let source = dice.source || null;
  if (s.turn) {
    values = s.turn.roll;
    source = s.turn.source;
  } else if (dice.last) {
    values = dice.last;
  }
  const rolling = dice.state === "rolling";
  const tilt = dice.state === "tilt";
  const cls = rolling ? "rolling" : tilt ? "tilt" : values ? "" : "empty";
  const box = $("dice");
  box.replaceChildren(dieSvg(values ? values[0] : null, cls), dieSvg(values ? values[1] : null, cls));
  box.dataset.values = values ? values.join("-") : "";
  const info = [];
  if (source) info.push(el("span", { class: `badge source-${source}`, text: source === "e-dice" ? "e-dice" : source }));
  const stateText = rolling ? "rolling…" : tilt ? "cocked die: throw again" : values ? "settled" : "no throw yet";
  info.push(el("span", { class: `badge dice-state ${dice.state || "idle"}`, text: stateText }));
  if (s.phase === "opening" && values) info.push(el("span", { class: "muted", text: "white's die, black's die" }));
  $("dice-info").replaceChildren(...info);
}

function renderScore() {
  const s = state;
  const m = s.match;
  const score = m.score || { white: 0, black: 0 };
  const player = (colour) => el("div", { class: `player ${colour}${numbering(s) === colour && s.phase === "playing" ? " on-turn" : ""}` },
    chip(colour), el("span", { class: "name", text: m[colour] || sideName(colour) }),
    el("span", { class: "points", "data-testid": `score-${colour}`, text: String(score[colour]) }));
  const parts = [m.length ? `match to ${m.length}` : "unlimited", m.variant === "long" ? "long nardy" : "short nardy", `game ${m.game}`];
  if (score.crawford) parts.push("Crawford game");
  const cube = s.cube || { value: 1 };
  let cubeText = "cube centred";
  if (cube.offered_by) cubeText = `${sideName(cube.offered_by)} offers ${cube.value * 2}`;
  else if (cube.owner) cubeText = `cube ${cube.value}, ${sideName(cube.owner)} owns it`;
  else if (cube.value > 1) cubeText = `cube ${cube.value}`;
  $("score").replaceChildren(
    el("div", { class: "players" }, player("white"), player("black")),
    el("div", { class: "match-line", text: parts.join(" · ") + (cubeInUse() ? ` · ${cubeText}` : "") }));
}

// ================================================================== moves
function renderMoves() {
  const s = state;
  const list = $("moves");
  const items = s.moves.map((m) => moveItem(m.number, m.mover, m.roll, m.play || "(no play)", m.flags));
  if (s.turn && s.turn.status !== "waiting") {
    const t = s.turn;
    const item = moveItem(s.moves.length + 1, t.mover, t.roll, t.play || "…", [t.status]);
    item.classList.add("current");
    items.push(item);
  }
  if (!items.length) items.push(el("li", { class: "muted empty", text: "No plays yet in this game." }));
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
  $("game-label").textContent = `game ${s.match.game}`;
}

function moveItem(number, mover, roll, play, flags = []) {
  return el("li", { dataset: { mover } },
    el("span", { class: "num", text: `${number}.` }), chip(mover),
    el("span", { class: "roll", text: `${roll[0]}-${roll[1]}` }),
    el("span", { class: "play", text: play }),
    ...flags.map((f) => el("span", { class: `flag ${f}`, text: f })));
}

// ================================================================== legal plays and hints
function renderPlays() {
  const s = state;
  const panel = $("plays-panel");
  const show = s.mode === "training" && s.turn && s.legal && s.legal.length > 0;
  panel.hidden = !show;
  if (!show) {
    if (preview) { preview = null; }
    return;
  }
  const hint = s.hint;
  const ranked = new Map();
  if (hint && hint.status === "ready") hint.plays.forEach((p, i) => ranked.set(p.play, { ...p, rank: i }));
  const plays = [...s.legal].sort((a, b) => (ranked.get(a.play)?.rank ?? 999) - (ranked.get(b.play)?.rank ?? 999));
  let engine = "";
  if (!s.services.hints) engine = "(hints are off)";
  else if (!hint) engine = "";
  else if (hint.status === "pending") engine = "(thinking…)";
  else if (hint.status === "error") engine = `(no hint: ${hint.error})`;
  else engine = `(${hint.engine})`;
  $("hint-engine").textContent = engine;
  const items = plays.map((p) => {
    const r = ranked.get(p.play);
    const best = r && r.rank === 0;
    const li = el("li", { class: `play-row${best ? " best" : ""}`, dataset: { play: p.play } },
      el("span", { class: "play", text: (best ? "★ " : "") + p.play }),
      r ? el("span", { class: "equity", text: `${r.equity >= 0 ? "+" : ""}${r.equity.toFixed(3)}` }) : null,
      el("span", { class: "loss", text: r && r.loss >= 0.0005 ? `−${r.loss.toFixed(3)}` : "" }),
      config.authorized ? el("button", { type: "button", class: "small", text: "Play", title: "This play is on the board",
        onclick: () => playThis(p) }) : null);
    li.addEventListener("mouseenter", () => { preview = p; renderBoard(); });
    li.addEventListener("mouseleave", () => { if (preview === p) { preview = null; renderBoard(); } });
    return li;
  });
  $("plays").replaceChildren(...items);
  if (preview && !plays.some((p) => p.play === preview.play)) preview = null;
}

async function playThis(p) {
  preview = null;
  await control("/api/command/correct", { position: p.position }, "Play");
}

// ================================================================== status strip
function renderStatus() {
  const s = state;
  const cam = $("status-camera");
  const boardStatus = $("status-board");
  if (!s.services.camera) {
    setStatus(cam, "Camera: none", "muted");
    boardStatus.hidden = true;
  } else {
    const ok = s.camera.ok;
    setStatus(cam, ok === false ? `Camera: LOST${s.camera.message ? ` (${s.camera.message})` : ""}` : ok ? "Camera: ok" : "Camera: starting", ok === false ? "bad" : ok ? "good" : "muted");
    boardStatus.hidden = false;
    const settled = s.board ? s.board.settled : true;
    setStatus(boardStatus, settled ? "Board: still" : `Board: moving (${(s.board.where || []).join(", ") || "hand"})`, settled ? "good" : "warn");
  }
  const d = s.dice || {};
  let text = "Dice: manual entry (no e-dice hub)";
  let cls = "muted";
  if (d.connected === true) {
    text = `E-dice: connected${d.device ? ` (${d.device})` : ""}`;
    cls = "good";
  } else if (d.connected === false) {
    text = "E-dice: DISCONNECTED";
    cls = "bad";
  }
  if (d.battery !== null && d.battery !== undefined) {
    text += ` · battery ${d.battery}%`;
    if (d.battery < 20 && cls === "good") cls = "warn";
  }
  setStatus($("status-dice"), text, cls);
  renderServerStatus();
}

function renderServerStatus() {
  const labels = { live: "Server: live", connecting: "Server: connecting…", reconnecting: "Server: reconnecting…", offline: "Server: OFFLINE" };
  const classes = { live: "good", connecting: "muted", reconnecting: "warn", offline: "bad" };
  let text = labels[serverStatus] || serverStatus;
  if (state && serverStatus === "live") text += ` · v${state.version}`;
  setStatus($("status-server"), text, classes[serverStatus] || "muted");
  document.body.dataset.server = serverStatus;
}

function setStatus(node, text, cls) {
  node.textContent = text;
  node.className = `status ${cls}`;
}

// ================================================================== controls
function renderControls() {
  const s = state;
  const auth = config.authorized;
  $("controls").hidden = !auth;
  $("dice-entry").hidden = !auth;
  if (!auth) return;
  const turn = s.turn;
  const status = turn ? turn.status : null;
  const enable = {
    undo: s.moves.length > 0 && (!turn || status === "waiting"),
    accept: status === "illegal" && (s.match.options || {}).illegal_play === "accept",
    reject: ["illegal", "played", "partial", "unsure"].includes(status),
    double: s.phase === "playing" && !turn && cubeInUse() && !(s.cube && s.cube.offered_by),
    take: !!(s.cube && s.cube.offered_by),
    drop: !!(s.cube && s.cube.offered_by),
    "new-game": s.phase !== "match-over",
  };
  for (const button of document.querySelectorAll("[data-command]")) {
    const name = button.dataset.command;
    button.disabled = name in enable ? !enable[name] : false;
  }
  $("resign-button").disabled = s.phase !== "playing";
  $("edit-button").disabled = !!editing;
  $("mode-button").textContent = s.mode === "training" ? "Referee mode" : "Training mode";
  $("mode-button").title = s.mode === "training" ? "Tournament: hide legal plays and hints" : "Show legal plays and hints";
  const row = $("profile-row");
  row.hidden = !s.services.calibration;
  if (!row.hidden) {
    const select = $("profile-select");
    const names = profiles.length ? profiles : s.profile ? [s.profile] : [];
    if (select.options.length !== Math.max(names.length, 1) || [...select.options].some((o, i) => o.value !== (names[i] ?? ""))) {
      select.replaceChildren(...(names.length ? names.map((n) => el("option", { value: n, text: n }))
        : [el("option", { value: "", text: "no saved profiles" })]));
    }
    if (s.profile) select.value = s.profile;
    $("profile-use").disabled = !names.length;
  }
}

function setupControls() {
  for (let i = 1; i <= 6; i++) {
    $("die-a").append(el("button", { type: "button", class: "die-button", text: String(i), dataset: { die: "a", value: i }, onclick: () => enterDie(i, 0) }));
    $("die-b").append(el("button", { type: "button", class: "die-button", text: String(i), dataset: { die: "b", value: i }, onclick: () => enterDie(i, 1) }));
  }
  for (const button of document.querySelectorAll("[data-command]")) {
    button.addEventListener("click", () => command(button.dataset.command, {}, button.textContent));
  }
  $("resign-button").addEventListener("click", () => {
    const by = $("resign-by").value;
    const multiplier = Number($("resign-mult").value);
    if (window.confirm(`${sideName(by)} resigns (${RESULT_NAMES[multiplier]})?`)) command("resign", { by, multiplier }, "Resign");
  });
  $("mode-button").addEventListener("click", () => control("/api/mode", { mode: state.mode === "training" ? "referee" : "training" }, "Mode"));
  $("new-match-button").addEventListener("click", openMatchDialog);
  $("match-cancel").addEventListener("click", () => $("match-dialog").close());
  $("match-form").addEventListener("submit", submitMatch);
  $("edit-button").addEventListener("click", startEditing);
  $("edit-cancel").addEventListener("click", stopEditing);
  $("edit-reset").addEventListener("click", () => { editing = structuredClone(boardPosition(state)); renderEditing(); });
  $("edit-submit").addEventListener("click", submitEditing);
  $("profile-use").addEventListener("click", () => control("/api/calibration/use", { name: $("profile-select").value }, "Profile"));
  onAuthorized((auth) => {
    if (state) { renderControls(); renderPlays(); }
    if (auth && config.available.calibration) loadProfiles();
  });
}

async function loadProfiles() {
  try {
    const data = await api("/api/calibration");
    profiles = data.profiles || [];
    if (state) renderControls();
  } catch (err) {
    profiles = [];
  }
}

async function command(name, body = {}, label = name) {
  return control(`/api/command/${name}`, body, label);
}

// Dice entry: two clicks or two key presses; the second sends the throw.
function enterDie(value, slot) {
  if (slot === 1 && pendingDie === null) {
    toast("Choose the first die first", "info");
    return;
  }
  if (pendingDie === null) {
    pendingDie = value;
    renderPending();
    return;
  }
  const dice = [pendingDie, value];
  pendingDie = null;
  renderPending();
  command("roll", { dice }, "Dice");
}

function renderPending() {
  $("dice-pending").textContent = pendingDie === null ? "" : `${pendingDie} – ?`;
  for (const b of document.querySelectorAll(".die-button")) {
    b.classList.toggle("chosen", b.dataset.die === "a" && Number(b.dataset.value) === pendingDie);
  }
}

function openMatchDialog() {
  const form = $("match-form");
  const m = state.match;
  form.variant.value = m.variant;
  form.length.value = m.length;
  form.white.value = m.white;
  form.black.value = m.black;
  $("match-error").hidden = true;
  $("match-dialog").showModal();
}

async function submitMatch(event) {
  event.preventDefault();
  const form = $("match-form");
  const body = { variant: form.variant.value, length: Number(form.length.value), white: form.white.value.trim(), black: form.black.value.trim() };
  try {
    await api("/api/command/new-match", body);
    $("match-dialog").close();
  } catch (err) {
    $("match-error").textContent = err.message;
    $("match-error").hidden = false;
  }
}

// ================================================================== correcting the board
function startEditing() {
  editing = structuredClone(boardPosition(state));
  preview = null;
  $("edit-bar").hidden = false;
  renderEditing();
}

function stopEditing() {
  editing = null;
  $("edit-bar").hidden = true;
  renderBoard();
  renderControls();
}

function total(position, colour) {
  const sign = colour === "white" ? 1 : -1;
  const onPoints = position.points.reduce((sum, n) => sum + (n * sign > 0 ? Math.abs(n) : 0), 0);
  return onPoints + (position.bar ? position.bar[colour] : 0) + position.off[colour];
}

function renderEditing() {
  renderBoard();
  renderControls();
  const w = total(editing, "white");
  const b = total(editing, "black");
  const counts = $("edit-counts");
  counts.textContent = `white ${w} · black ${b}`;
  counts.classList.toggle("wrong", w !== 15 || b !== 15);
}

function editPlace(placeName, { remove }) {
  if (!editing) return;
  const colour = document.querySelector('input[name="edit-colour"]:checked').value;
  const pos = editing;
  const sign = colour === "white" ? 1 : -1;
  const full = (c) => total(pos, c) >= 15;
  if (/^\d+$/.test(placeName)) {
    const i = Number(placeName) - 1;
    const n = pos.points[i];
    if (remove) {
      pos.points[i] = n > 0 ? n - 1 : n < 0 ? n + 1 : 0;
    } else if (n * sign < 0) {
      pos.points[i] = n + sign; // take one of the other colour off first
    } else if (full(colour)) {
      toast(`${sideName(colour)} has 15 checkers already: take one off somewhere first`, "info");
      return;
    } else {
      pos.points[i] = n + sign;
    }
  } else {
    const [where, who] = placeName.split("-");
    if (where === "bar" && !pos.bar) pos.bar = { white: 0, black: 0 };
    const box = pos[where];
    if (remove) box[who] = Math.max(0, box[who] - 1);
    else if (full(who)) {
      toast(`${sideName(who)} has 15 checkers already`, "info");
      return;
    } else box[who] += 1;
  }
  renderEditing();
}

async function submitEditing() {
  const position = editing;
  const result = await command("correct", { position }, "Correction");
  if (result) {
    stopEditing();
    if (result.legal === false && result.reason) toast(`Judged illegal: ${result.reason}`, "error");
  }
}

// ================================================================== camera
function setupCamera() {
  if (!config.available.camera) return;
  const box = $("camera-box");
  const img = el("img", { alt: "The camera's picture with what vision saw", class: "camera-img", "data-testid": "camera-img" });
  box.replaceChildren(img);
  const toggle = $("camera-toggle");
  let kind = "overlay";
  toggle.hidden = false;
  toggle.addEventListener("click", () => {
    kind = kind === "overlay" ? "frame" : "overlay";
    toggle.textContent = kind === "overlay" ? "Raw picture" : "What vision saw";
    lastSeq = null;
  });
  let lastSeq = null;
  let url = null;
  const poll = async () => {
    if (document.visibilityState === "visible") {
      try {
        const response = await fetch(`/api/camera/${kind}.jpg`, { cache: "no-cache" });
        if (response.ok) {
          const seq = response.headers.get("X-Frame-Seq");
          if (seq !== lastSeq) {
            lastSeq = seq;
            const blob = await response.blob();
            const next = URL.createObjectURL(blob);
            img.src = next;
            if (url) URL.revokeObjectURL(url);
            url = next;
          }
          box.classList.remove("stale");
        } else {
          box.classList.add("stale");
        }
      } catch (err) {
        box.classList.add("stale");
      }
    }
    setTimeout(poll, config.cameraRefreshMs);
  };
  poll();
}

// ================================================================== keyboard
function setupKeyboard() {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, select, textarea, dialog[open]")) return;
    if (document.querySelector("dialog[open]")) return;
    if (event.key === "Escape") {
      if (pendingDie !== null) { pendingDie = null; renderPending(); }
      else if (editing) stopEditing();
      return;
    }
    if (event.key === "f" || event.key === "F") {
      toggleFlip();
      return;
    }
    if (/^[1-6]$/.test(event.key) && config.authorized && !editing) {
      event.preventDefault();
      enterDie(Number(event.key), pendingDie === null ? 0 : 1);
    }
  });
}

function toggleFlip() {
  flipped = !flipped;
  store.set("nardy.flip", flipped ? "yes" : "no");
  renderBoard();
}

function setupTools() {
  $("flip-button").addEventListener("click", toggleFlip);
  const soundButton = $("sound-button");
  const showSound = () => {
    soundButton.textContent = sound ? "Sound on" : "Sound off";
    soundButton.setAttribute("aria-pressed", sound ? "true" : "false");
  };
  soundButton.addEventListener("click", () => {
    sound = !sound;
    store.set("nardy.sound", sound ? "yes" : "no");
    showSound();
    if (sound) beep("warning");
  });
  showSound();
}

// ================================================================== putting it together
function render(next, events, full) {
  state = next;
  const modeBadge = $("mode-badge");
  modeBadge.textContent = `${state.mode} mode`;
  modeBadge.className = `badge mode-${state.mode}`;
  const s = state;
  if (changed("alerts", s.alerts)) renderAlerts(full ? null : events);
  if (changed("turn", [s.phase, s.turn, s.to_move, s.result, s.cube, s.match.game])) renderTurn();
  if (changed("dice", [s.dice, s.turn, s.phase])) renderDice();
  if (changed("score", [s.match, s.cube, s.phase, s.turn, s.to_move])) renderScore();
  if (changed("moves", [s.moves, s.turn, s.match.game])) renderMoves();
  if (changed("plays", [s.mode, s.turn, s.legal, s.hint, s.services, config.authorized])) renderPlays();
  renderBoard();
  renderStatus();
  renderControls();
  document.body.dataset.version = String(state.version);
  document.title = pageTitle(state);
}

// The tab's title says what matters, for a director with many tabs.
function pageTitle(s) {
  const error = s.alerts.find((a) => a.severity === "error");
  if (error) return `⚠ ${ALERT_TITLES[error.code] || error.code} — nardy`;
  if (s.turn) return `${sideName(s.turn.mover)} to play ${s.turn.roll[0]}-${s.turn.roll[1]} — nardy`;
  if (s.to_move && s.phase === "playing") return `${sideName(s.to_move)} to throw — nardy`;
  return "Live — nardy companion";
}

// A table's screen must not go to sleep during a match (where the browser allows it).
async function keepAwake() {
  try {
    if (navigator.wakeLock && document.visibilityState === "visible") await navigator.wakeLock.request("screen");
  } catch (err) {
    // not allowed here (no HTTPS, battery saver): the screen's own settings decide
  }
}

keepAwake();
document.addEventListener("visibilitychange", keepAwake);
setupTools();
setupControls();
setupKeyboard();
setupCamera();
const live = new LiveState({
  onState: render,
  onStatus: (status) => { serverStatus = status; renderServerStatus(); },
});
live.start(JSON.parse($("initial-state").textContent));
