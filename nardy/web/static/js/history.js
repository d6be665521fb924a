// The history page: recorded matches, a game's plays with a position slider, the exports, and
// the post-match analysis (each play's mark and equity lost), asked for once the match is drawn.

import { api, el, toast, sideName } from "./common.js";
import { BoardView } from "./board.js";

const $ = (id) => document.getElementById(id);
const board = new BoardView($("hist-svg"));
let match = null;
let game = null;
let index = 0;
let analysis = null; // the analysis of the match shown, once it has come

const SYMBOLS = { doubtful: "?!", error: "?", blunder: "??" };
const LABELS = { doubtful: "Doubtful", error: "Error", blunder: "Blunder" };

function positions(g) {
  const moves = g.moves || [];
  if (!moves.length) return g.start ? [g.start] : [];
  return [moves[0].before, ...moves.map((m) => m.after)];
}

function scoreText(score) {
  return score ? `${score.white}–${score.black}` : "";
}

async function loadList() {
  let data;
  try {
    data = await api("/api/matches");
  } catch (err) {
    toast(err.message);
    return;
  }
  $("hist-unavailable").hidden = data.available;
  const body = $("matches").querySelector("tbody");
  const rows = data.matches.map((m) => {
    const row = el("tr", { dataset: { match: m.id }, tabindex: 0 },
      el("td", { text: m.started || m.id }), el("td", { text: m.white || "" }), el("td", { text: m.black || "" }),
      el("td", { text: m.variant === "long" ? "long nardy" : m.variant === "short" ? "short nardy" : m.variant || "" }),
      el("td", { text: m.length ? `${m.length}` : "—" }), el("td", { text: scoreText(m.score) }),
      el("td", { text: m.games ?? "" }));
    row.addEventListener("click", () => loadMatch(m.id));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") loadMatch(m.id); });
    return row;
  });
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: 7, class: "muted", text: data.available ? "No recorded matches yet." : "—" })));
  body.replaceChildren(...rows);
  const wanted = new URLSearchParams(location.search).get("match");
  if (wanted && data.matches.some((m) => m.id === wanted)) loadMatch(wanted, true);
}

async function loadMatch(id, fromUrl = false) {
  try {
    match = await api(`/api/matches/${encodeURIComponent(id)}`);
  } catch (err) {
    toast(err.message);
    return;
  }
  for (const row of $("matches").querySelectorAll("tbody tr")) row.classList.toggle("selected", row.dataset.match === id);
  const info = match.match || {};
  $("hist-title").textContent = `${info.white || "White"} – ${info.black || "Black"} · ${info.variant === "long" ? "long" : "short"} nardy${info.length ? ` · match to ${info.length}` : ""}`;
  $("hist-downloads").replaceChildren(...(match.formats || []).map((fmt) =>
    el("a", { href: `/api/matches/${encodeURIComponent(id)}/export/${encodeURIComponent(fmt)}`, download: "", "data-format": fmt, text: fmt })));
  const games = match.games || [];
  $("hist-game").replaceChildren(...games.map((g, i) => el("option", { value: i, text: `Game ${g.number ?? i + 1}${g.result ? ` · ${sideName(g.result.winner)} +${g.result.points}` : ""}` })));
  $("hist-match").hidden = false;
  const params = new URLSearchParams(location.search);
  const gameIndex = fromUrl ? Math.min(Number(params.get("game") || 0), Math.max(games.length - 1, 0)) : 0;
  $("hist-game").value = String(gameIndex);
  showGame(gameIndex, fromUrl ? Number(params.get("move") || 0) : 0);
  loadAnalysis(match);
}

// ------------------------------------------------------------------ analysis
async function loadAnalysis(shown) {
  analysis = null;
  const box = $("hist-analysis");
  box.hidden = !shown.analysis;
  if (!shown.analysis) return;
  box.dataset.state = "busy";
  $("hist-analysis-status").textContent = "Analysing the plays…";
  $("hist-summary").replaceChildren();
  let data;
  try {
    data = await api(`/api/matches/${encodeURIComponent(shown.id)}/analysis`);
  } catch (err) {
    if (match !== shown) return;
    box.dataset.state = "failed";
    $("hist-analysis-status").textContent = `No analysis: ${err.message}`;
    return;
  }
  if (match !== shown) return; // another match was chosen meanwhile
  analysis = data;
  const t = data.thresholds || {};
  $("hist-analysis-status").textContent =
    `By ${data.engine || "the hint engine"}: equity given up against the best play; ` +
    `?! doubtful ≥ ${t.doubtful}, ? error ≥ ${t.error}, ?? blunder ≥ ${t.blunder}.`;
  const info = match.match || {};
  const head = el("tr", {}, ...["", "Decisions", "Lost", "Per play", "??", "?", "?!"].map((h) => el("th", { text: h })));
  const rows = ["white", "black"].map((side) => {
    const s = (data.summary || {})[side] || { marks: {} };
    const marks = s.marks || {};
    return el("tr", { dataset: { side } },
      el("td", {}, el("span", { class: `chip ${side}` }), ` ${info[side] || sideName(side)}`),
      el("td", { text: s.decisions ?? 0 }), el("td", { text: (s.total_loss ?? 0).toFixed(3) }),
      el("td", { text: (s.mean_loss ?? 0).toFixed(3) }),
      ...["blunder", "error", "doubtful"].map((m) => el("td", { "data-mark": m, text: marks[m] || 0 })));
  });
  $("hist-summary").replaceChildren(head, ...rows);
  box.dataset.state = "done";
  markMoves();
  showVerdict();
}

function verdictOf(k) {
  // the analysis of the game's k-th play (0-based), when it has come
  if (!analysis) return null;
  const games = analysis.games || [];
  const g = games[Number($("hist-game").value)] || {};
  return (g.turns || [])[k] || null;
}

function markMoves() {
  for (const li of $("hist-moves").querySelectorAll("li[data-index]")) {
    for (const old of li.querySelectorAll(".mark")) old.remove();
    li.classList.remove("marked-doubtful", "marked-error", "marked-blunder");
    const v = verdictOf(Number(li.dataset.index) - 1);
    if (!v || !SYMBOLS[v.mark]) continue;
    li.classList.add(`marked-${v.mark}`);
    const best = v.best ? `; best ${v.best}` : "";
    li.querySelector(".play").after(el("span", {
      class: `mark ${v.mark}`, "data-mark": v.mark, "data-testid": "mark",
      title: `${LABELS[v.mark]}: gave up ${v.loss.toFixed(3)}${best}`,
      text: `${SYMBOLS[v.mark]} −${v.loss.toFixed(3)}`,
    }));
  }
}

function showVerdict() {
  const box = $("hist-verdict");
  const v = index > 0 ? verdictOf(index - 1) : null;
  box.className = `verdict ${v ? v.mark : ""}`;
  box.dataset.mark = v ? v.mark : "";
  if (!v) {
    box.textContent = "";
    return;
  }
  const best = v.best ? ` The best play was ${v.best}.` : "";
  let text;
  if (v.mark === "illegal") text = `Illegal play, not analysed.${best}`;
  else if (v.mark === "no-play") text = "No legal play.";
  else if (v.mark === "forced") text = "Forced: the only legal play.";
  else if (v.rank === 1) text = `The best play (of ${v.choices}).`;
  else {
    const label = LABELS[v.mark] ? `${LABELS[v.mark]}: ` : "";
    text = `${label}gave up ${v.loss.toFixed(3)}, ranked ${v.rank} of ${v.choices}.${best}`;
  }
  box.textContent = text;
}

function showGame(i, at = 0) {
  game = (match.games || [])[i] || { moves: [] };
  const list = positions(game);
  const slider = $("hist-slider");
  slider.max = String(Math.max(list.length - 1, 0));
  const moves = game.moves || [];
  $("hist-moves").replaceChildren(...moves.map((m, k) => {
    const li = el("li", { dataset: { index: k + 1 } },
      el("span", { class: "num", text: `${m.number ?? k + 1}.` }), el("span", { class: `chip ${m.mover}` }),
      el("span", { class: "roll", text: `${m.roll[0]}-${m.roll[1]}` }), el("span", { class: "play", text: m.play || "(no play)" }),
      ...(m.flags || []).map((f) => el("span", { class: `flag ${f}`, text: f })));
    li.addEventListener("click", () => show(k + 1));
    return li;
  }));
  if (game.result) {
    const r = game.result;
    $("hist-moves").append(el("li", { class: "muted", text: `${sideName(r.winner)} wins ${r.points} point${r.points === 1 ? "" : "s"}${r.name ? ` (${r.name})` : ""}` }));
  }
  markMoves();
  show(Math.min(at, list.length - 1));
}

function show(i) {
  const list = positions(game);
  if (!list.length) {
    board.render({ position: null });
    $("hist-caption").textContent = "This game has no plays.";
    $("hist-verdict").textContent = "";
    return;
  }
  index = Math.max(0, Math.min(i, list.length - 1));
  const moves = game.moves || [];
  const last = index > 0 ? moves[index - 1] : null;
  // numbered for the side whose play is shown, so the caption and the board agree
  const numbering = last ? last.mover : moves.length ? moves[0].mover : "white";
  let from = [];
  let to = [];
  if (last) {
    const sign = last.mover === "black" ? -1 : 1;
    for (let p = 0; p < 24; p++) {
      const a = last.before.points[p] * sign;
      const b = last.after.points[p] * sign;
      if (b < a) from.push(p + 1);
      else if (b > a) to.push(p + 1);
    }
  }
  board.render({ position: list[index], numbering, from, to });
  $("hist-slider").value = String(index);
  $("hist-pos").textContent = `${index} / ${list.length - 1}`;
  $("hist-caption").textContent = last
    ? `${last.number ?? index}. ${sideName(last.mover)} ${last.roll[0]}-${last.roll[1]}: ${last.play || "(no play)"}`
    : `Start of game ${game.number ?? ""}`;
  showVerdict();
  for (const li of $("hist-moves").querySelectorAll("li[data-index]")) li.classList.toggle("selected", Number(li.dataset.index) === index);
  const params = new URLSearchParams(location.search);
  params.set("match", match.id);
  params.set("game", $("hist-game").value);
  params.set("move", String(index));
  history.replaceState(null, "", `?${params}`);
  document.body.dataset.index = String(index);
}

$("hist-slider").addEventListener("input", (event) => show(Number(event.target.value)));
$("hist-prev").addEventListener("click", () => show(index - 1));
$("hist-next").addEventListener("click", () => show(index + 1));
$("hist-game").addEventListener("change", (event) => showGame(Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if (!game || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") show(index - 1);
  else if (event.key === "ArrowRight") show(index + 1);
  else if (event.key === "Home") show(0);
  else if (event.key === "End") show(positions(game).length - 1);
});
loadList();
