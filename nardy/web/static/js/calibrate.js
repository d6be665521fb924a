// The calibration page: snapshot, four corners (clicked, dragged or found automatically), the
// rectified board with the checkers vision found, colour learning, and profiles.

import { config, api, control, toast, el, onAuthorized } from "./common.js";

const NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const LABELS = ["TL", "TR", "BR", "BL"];

let picture = null; // {image, width, height}
let corners = []; // [[x, y]...] image pixels
let dragging = null;
let dragged = false; // the click that ends a drag must not add a corner

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

// Order four points clockwise on screen, starting at the top-left one.
export function orderCorners(points) {
  if (points.length !== 4) return points;
  const cx = points.reduce((s, p) => s + p[0], 0) / 4;
  const cy = points.reduce((s, p) => s + p[1], 0) / 4;
  const sorted = [...points].sort((a, b) => Math.atan2(a[1] - cy, a[0] - cx) - Math.atan2(b[1] - cy, b[0] - cx));
  let first = 0;
  sorted.forEach((p, i) => { if (p[0] + p[1] < sorted[first][0] + sorted[first][1]) first = i; });
  return [...sorted.slice(first), ...sorted.slice(0, first)];
}

function renderImage() {
  const root = $("cal-image");
  root.replaceChildren();
  if (!picture) {
    root.setAttribute("viewBox", "0 0 1280 720");
    root.append(svg("text", { x: 640, y: 360, fill: "#889", "font-size": 40, "text-anchor": "middle" }, "Take a snapshot to begin"));
    return;
  }
  root.setAttribute("viewBox", `0 0 ${picture.width} ${picture.height}`);
  root.append(svg("image", { href: picture.image, x: 0, y: 0, width: picture.width, height: picture.height }));
  const size = Math.max(picture.width, picture.height) / 80;
  if (corners.length >= 2) {
    const shown = corners.length === 4 ? orderCorners(corners) : corners;
    root.append(svg("polygon", { points: shown.map((p) => p.join(",")).join(" "), class: "quad" }));
  }
  const labelled = corners.length === 4 ? orderCorners(corners) : corners;
  labelled.forEach((p, i) => {
    const handle = svg("circle", { cx: p[0], cy: p[1], r: size, class: "corner", "data-corner": i });
    handle.addEventListener("pointerdown", (event) => startDrag(event, p));
    root.append(handle);
    root.append(svg("text", { x: p[0], y: p[1] - size * 1.6, class: "corner-label", "font-size": size * 1.8 },
      corners.length === 4 ? LABELS[i] : String(i + 1)));
  });
  $("cal-next").textContent = corners.length < 4 ? `— click corner ${corners.length + 1} of 4` : "— drag a corner to adjust";
  const info = $("cal-corner-info");
  info.textContent = corners.length === 4
    ? `Corners: ${orderCorners(corners).map((p, i) => `${LABELS[i]} (${Math.round(p[0])}, ${Math.round(p[1])})`).join(", ")}`
    : `${corners.length} of 4 corners.`;
  document.body.dataset.corners = String(corners.length);
}

function imagePoint(event) {
  const root = $("cal-image");
  const point = root.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const p = point.matrixTransform(root.getScreenCTM().inverse());
  return [Math.max(0, Math.min(picture.width, p.x)), Math.max(0, Math.min(picture.height, p.y))];
}

function startDrag(event, corner) {
  event.stopPropagation();
  event.preventDefault();
  dragging = corner;
  dragged = false;
}

function setupImage() {
  const root = $("cal-image");
  root.addEventListener("pointermove", (event) => {
    if (!dragging || !picture) return;
    dragged = true;
    const [x, y] = imagePoint(event);
    dragging[0] = x;
    dragging[1] = y;
    renderImage();
  });
  root.addEventListener("pointerup", () => { dragging = null; });
  root.addEventListener("pointerleave", () => { dragging = null; });
  root.addEventListener("click", (event) => {
    if (dragged) {
      dragged = false;
      return;
    }
    if (!picture || event.target.classList.contains("corner")) return;
    if (corners.length >= 4) {
      toast("Four corners already: drag one to move it, or clear them", "info");
      return;
    }
    corners.push(imagePoint(event));
    if (corners.length === 4) corners = orderCorners(corners);
    renderImage();
  });
}

function needCorners() {
  if (corners.length !== 4) {
    toast("Mark the four corners first");
    return null;
  }
  return orderCorners(corners).map(([x, y]) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
}

async function snapshot() {
  const data = await control("/api/calibration/snapshot", {}, "Snapshot");
  if (!data) return;
  picture = data;
  corners = [];
  $("cal-rectified").replaceChildren();
  renderImage();
}

async function autoCorners() {
  if (!picture) return toast("Take a snapshot first");
  const data = await control("/api/calibration/auto-corners", {}, "Board finder");
  if (!data) return;
  corners = data.corners.map((p) => [p[0], p[1]]);
  renderImage();
  $("cal-corner-info").textContent += ` — found ${data.source === "markers" ? "from the markers" : "automatically"}, ${Math.round(data.confidence * 100)}% sure`;
}

async function preview() {
  const c = needCorners();
  if (!c) return;
  const data = await control("/api/calibration/preview", { corners: c }, "Preview");
  if (!data) return;
  const root = $("cal-rectified");
  root.setAttribute("viewBox", `0 0 ${data.width} ${data.height}`);
  root.replaceChildren(svg("image", { href: data.image, x: 0, y: 0, width: data.width, height: data.height }));
  for (const ch of data.checkers) {
    root.append(svg("circle", { cx: ch.x, cy: ch.y, r: ch.r, class: `seen ${ch.colour}` }));
  }
  root.dataset.checkers = String(data.checkers.length);
  const light = data.checkers.filter((c) => c.colour === "light").length;
  const dark = data.checkers.filter((c) => c.colour === "dark").length;
  $("cal-note").textContent = `— ${light} light, ${dark} dark${data.note ? ` · ${data.note}` : ""}`;
}

async function colours() {
  const c = needCorners();
  if (!c) return;
  const data = await control("/api/calibration/colours", { corners: c }, "Colours");
  if (!data) return;
  const info = $("cal-colour-info");
  info.replaceChildren("Learned: ");
  for (const [key, value] of Object.entries(data.colours)) {
    if (typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value)) {
      const swatch = el("span", { class: "swatch", title: value });
      swatch.style.background = value;
      info.append(`${key}`, swatch);
    } else {
      info.append(`${key}: ${value} `);
    }
  }
}

async function save() {
  const c = needCorners();
  if (!c) return;
  const name = $("cal-name").value.trim();
  if (!name) return toast("Give the profile a name");
  const data = await control("/api/calibration/save", { name, corners: c }, "Save");
  if (!data) return;
  toast(`Saved ${data.name} (${data.saved})`, "ok");
  loadProfiles();
}

async function useProfile() {
  const name = $("cal-profiles").value;
  if (!name) return;
  const data = await control("/api/calibration/use", { name }, "Profile");
  if (data) {
    toast(`The live session uses ${name}`, "ok");
    loadProfiles();
  }
}

async function loadProfiles() {
  try {
    const data = await api("/api/calibration");
    const options = data.profiles.map((n) => el("option", { value: n, text: n }));
    if (!options.length) options.push(el("option", { value: "", text: "none saved yet" }));
    $("cal-profiles").replaceChildren(...options);
    $("cal-use").disabled = !data.profiles.length;
    if (data.current) $("cal-profiles").value = data.current;
    $("cal-current").textContent = data.current ? `The live session uses: ${data.current}` : "No profile in use.";
  } catch (err) {
    toast(err.message);
  }
}

function show(authorized) {
  const available = config.available.calibration;
  $("cal-unavailable").hidden = available;
  $("cal-locked").hidden = !available || authorized;
  $("cal-work").hidden = !available || !authorized;
  if (available && authorized) loadProfiles();
}

$("cal-snapshot").addEventListener("click", snapshot);
$("cal-auto").addEventListener("click", autoCorners);
$("cal-clear").addEventListener("click", () => { corners = []; renderImage(); });
$("cal-preview").addEventListener("click", preview);
$("cal-colours").addEventListener("click", colours);
$("cal-save").addEventListener("click", save);
$("cal-use").addEventListener("click", useProfile);
setupImage();
renderImage();
onAuthorized(show);
