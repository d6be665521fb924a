// The board as SVG, drawn from a position JSON (white's numbering: points[i] is point i+1,
// positive white, negative black). Both variants share the picture: points 13-24 along the top
// from the left, 12-1 along the bottom, white's home bottom right, the trays on the right.
// Point numbers are the numbering of the side to move (black counts its own way round).

const NS = "http://www.w3.org/2000/svg";

export const G = {
  width: 1038, height: 708,
  left: 16, pw: 70, bar: 70, trayX: 942, trayW: 80,
  top: 44, field: 620, band: 44, r: 30, stack: 5, pointLength: 270,
};
G.barX = G.left + 6 * G.pw;             // 436
G.rightX = G.barX + G.bar;              // 506
G.bottom = G.top + G.field;             // 664
G.mid = G.top + G.field / 2;            // 354

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  return node;
}

// The number the side `colour` gives to white's point p.
export function moverNumber(variant, colour, p) {
  if (colour !== "black") return p;
  return variant === "long" ? ((p + 11) % 24) + 1 : 25 - p;
}

// Where white's point p is drawn: its row and column (0..11 from the left).
export function place(p, flipped = false) {
  let row = p >= 13 ? "top" : "bottom";
  let col = p >= 13 ? p - 13 : 12 - p;
  if (flipped) {
    row = row === "top" ? "bottom" : "top";
    col = 11 - col;
  }
  return { row, col };
}

function columnX(col) {
  return col < 6 ? G.left + col * G.pw + G.pw / 2 : G.rightX + (col - 6) * G.pw + G.pw / 2;
}

// The rectangle of a point's half of the field (for highlights and clicks).
function pointRect(p, flipped) {
  const { row, col } = place(p, flipped);
  const x = columnX(col) - G.pw / 2;
  const y = row === "top" ? G.top : G.mid;
  return { x, y, w: G.pw, h: G.field / 2, row, col };
}

function checker(parent, colour, cx, cy, label = null, extraClass = "") {
  parent.append(svg("circle", { cx, cy, r: G.r - 1, class: `checker ${colour} ${extraClass}`.trim() }));
  if (label !== null) {
    parent.append(svg("text", { x: cx, y: cy + 10, class: `checker-count on-${colour}` }, String(label)));
  }
}

// Changed points between two positions, for the side `mover`: where checkers left and arrived.
export function diffPoints(before, after, mover) {
  const from = [];
  const to = [];
  const sign = mover === "black" ? -1 : 1;
  for (let i = 0; i < 24; i++) {
    const a = before.points[i] * sign;
    const b = after.points[i] * sign;
    if (b < a) from.push(i + 1);
    else if (b > a) to.push(i + 1);
  }
  return { from, to };
}

export class BoardView {
  // svg: the <svg> element; onPlace(place, event) is called for clicks in edit mode, where place is
  // a point number (white's numbering) or "bar-white", "bar-black", "off-white", "off-black".
  constructor(element, { onPlace = null } = {}) {
    this.el = element;
    this.onPlace = onPlace;
    this.el.addEventListener("click", (event) => this.click(event));
    this.el.addEventListener("contextmenu", (event) => {
      if (this.editing) {
        event.preventDefault();
        this.click(event, true);
      }
    });
    this.editing = false;
  }

  click(event, remove = false) {
    if (!this.editing || !this.onPlace) return;
    const hit = event.target.closest("[data-place]");
    if (hit) this.onPlace(hit.dataset.place, { remove: remove || event.shiftKey });
  }

  // model: {position, numbering ("white"|"black"), flipped, alertPoints, from, to, cube, editing, caption}
  render(model) {
    const { position } = model;
    const flipped = !!model.flipped;
    this.editing = !!model.editing;
    const root = this.el;
    root.replaceChildren();
    root.setAttribute("viewBox", `0 0 ${G.width} ${G.height}`);
    root.classList.toggle("editing", this.editing);
    if (!position) return;
    root.dataset.variant = position.variant;

    // frame, field, bar and trays
    root.append(svg("rect", { x: 0, y: 0, width: G.width, height: G.height, rx: 14, class: "frame" }));
    root.append(svg("rect", { x: G.left, y: G.top, width: 6 * G.pw, height: G.field, class: "field" }));
    root.append(svg("rect", { x: G.rightX, y: G.top, width: 6 * G.pw, height: G.field, class: "field" }));
    root.append(svg("rect", { x: G.barX, y: G.top, width: G.bar, height: G.field, class: "bar" }));
    root.append(svg("rect", { x: G.trayX, y: G.top, width: G.trayW, height: G.field / 2 - 6, rx: 6, class: "tray" }));
    root.append(svg("rect", { x: G.trayX, y: G.mid + 6, width: G.trayW, height: G.field / 2 - 6, rx: 6, class: "tray" }));

    // points and their numbers
    const numbering = model.numbering || "white";
    for (let p = 1; p <= 24; p++) {
      const { row, col } = place(p, flipped);
      const cx = columnX(col);
      const x0 = cx - G.pw / 2;
      const tone = (col + (row === "top" ? 0 : 1)) % 2 === 0 ? "dark" : "light";
      const base = row === "top" ? G.top : G.bottom;
      const tip = row === "top" ? G.top + G.pointLength : G.bottom - G.pointLength;
      root.append(svg("polygon", {
        points: `${x0 + 2},${base} ${x0 + G.pw - 2},${base} ${cx},${tip}`,
        class: `point ${tone}`, "data-point": p,
      }));
      const ny = row === "top" ? G.top - 10 : G.bottom + 35;
      root.append(svg("text", { x: cx, y: ny, class: "point-number", "data-number-of": p },
        String(moverNumber(position.variant, numbering, p))));
    }
    // whose numbers these are: a small checker of that colour in the bands above and below the bar
    for (const y of [G.top / 2, G.bottom + G.band / 2]) {
      root.append(svg("circle", { cx: G.barX + G.bar / 2, cy: y, r: 13, class: `checker ${numbering} numbering-mark` }));
    }

    // highlights under the checkers
    const mark = (points, cls) => {
      for (const p of points || []) {
        if (p < 1 || p > 24) continue;
        const r = pointRect(p, flipped);
        root.append(svg("rect", { x: r.x + 3, y: r.y + 3, width: r.w - 6, height: r.h - 6, rx: 8,
          class: `highlight ${cls}`, "data-highlight": p }));
      }
    };
    mark(model.from, "from");
    mark(model.to, "to");
    mark(model.alertPoints, "alert");

    // checkers on the points
    for (let p = 1; p <= 24; p++) {
      const n = position.points[p - 1];
      if (!n) continue;
      const colour = n > 0 ? "white" : "black";
      const count = Math.abs(n);
      const { row, col } = place(p, flipped);
      const cx = columnX(col);
      const group = svg("g", { class: "stack", "data-point": p, "data-count": n });
      const shown = Math.min(count, G.stack);
      for (let i = 0; i < shown; i++) {
        const cy = row === "top" ? G.top + G.r + i * 2 * G.r : G.bottom - G.r - i * 2 * G.r;
        const label = i === shown - 1 && count > G.stack ? count : null;
        checker(group, colour, cx, cy, label);
      }
      root.append(group);
    }

    // the bar (short nardy): white below the middle, black above
    const bar = position.bar || { white: 0, black: 0 };
    const barCx = G.barX + G.bar / 2;
    for (const colour of ["white", "black"]) {
      const n = bar[colour] || 0;
      if (!n) continue;
      const down = (colour === "white") !== flipped;
      const group = svg("g", { class: "stack bar-stack", "data-bar": colour, "data-count": n });
      const shown = Math.min(n, 3);
      for (let i = 0; i < shown; i++) {
        const cy = down ? G.mid + 45 + G.r + i * 2 * G.r : G.mid - 45 - G.r - i * 2 * G.r;
        checker(group, colour, barCx, cy, i === shown - 1 && n > 1 ? n : null);
      }
      root.append(group);
    }

    // the trays: white's off bottom right, black's top right
    const off = position.off || { white: 0, black: 0 };
    for (const colour of ["white", "black"]) {
      const n = off[colour] || 0;
      const down = (colour === "white") !== flipped;
      const group = svg("g", { class: "tray-stack", "data-off": colour, "data-count": n });
      for (let i = 0; i < n; i++) {
        const y = down ? G.bottom - 8 - (i + 1) * 16 : G.top + 8 + i * 16;
        group.append(svg("rect", { x: G.trayX + 8, y, width: G.trayW - 16, height: 13, rx: 4, class: `slab ${colour}` }));
      }
      if (n) {
        const ty = down ? G.bottom - 8 - n * 16 - 12 : G.top + 8 + n * 16 + 32;
        group.append(svg("text", { x: G.trayX + G.trayW / 2, y: ty, class: "tray-count" }, String(n)));
      }
      root.append(group);
    }

    // the cube: middle of the bar when centred, towards its owner otherwise
    if (model.cube) {
      const { value, owner, offered_by: offered } = model.cube;
      const shownValue = offered ? value * 2 : value;
      let cy = G.mid;
      if (owner) cy = ((owner === "white") !== flipped) ? G.bottom - 60 : G.top + 60;
      const g = svg("g", { class: `cube${offered ? " offered" : ""}`, "data-cube": shownValue });
      g.append(svg("rect", { x: barCx - 30, y: cy - 30, width: 60, height: 60, rx: 10 }));
      g.append(svg("text", { x: barCx, y: cy + 13 }, String(owner || offered ? shownValue : 64)));
      root.append(g);
    }

    if (model.caption) {
      const cx = (G.left + G.rightX + 6 * G.pw) / 2;
      const width = Math.min(16 + model.caption.length * 24, 6 * G.pw * 2);
      root.append(svg("rect", { x: cx - width / 2, y: G.mid - 30, width, height: 60, rx: 12, class: "board-caption-box" }));
      root.append(svg("text", { x: cx, y: G.mid + 14, class: "board-caption" }, model.caption));
    }

    // click targets for editing
    if (this.editing) {
      for (let p = 1; p <= 24; p++) {
        const r = pointRect(p, flipped);
        root.append(svg("rect", { x: r.x, y: r.y, width: r.w, height: r.h, class: "hit", "data-place": String(p) }));
      }
      if (position.variant === "short") {
        root.append(svg("rect", { x: G.barX, y: flipped ? G.top : G.mid, width: G.bar, height: G.field / 2, class: "hit", "data-place": "bar-white" }));
        root.append(svg("rect", { x: G.barX, y: flipped ? G.mid : G.top, width: G.bar, height: G.field / 2, class: "hit", "data-place": "bar-black" }));
      }
      root.append(svg("rect", { x: G.trayX, y: flipped ? G.top : G.mid, width: G.trayW, height: G.field / 2, class: "hit", "data-place": "off-white" }));
      root.append(svg("rect", { x: G.trayX, y: flipped ? G.mid : G.top, width: G.trayW, height: G.field / 2, class: "hit", "data-place": "off-black" }));
    }
  }
}

// Dice as SVG: big, with pips.
const PIPS = {
  1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

export function dieSvg(value, extraClass = "") {
  const root = svg("svg", { viewBox: "0 0 100 100", class: `die ${extraClass}`.trim(), "data-value": value ?? "" });
  root.append(svg("rect", { x: 3, y: 3, width: 94, height: 94, rx: 16, class: "die-face" }));
  if (value >= 1 && value <= 6) {
    for (const [x, y] of PIPS[value]) root.append(svg("circle", { cx: x, cy: y, r: 9, class: "pip" }));
  } else {
    root.append(svg("text", { x: 50, y: 64, class: "die-unknown" }, "?"));
  }
  return root;
}
