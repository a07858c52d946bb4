// pinochle-arena: drawing cards, shared by the report's viewer (report.js), the league's game pages and the human
// seat (play.js). A card is a face drawn in SVG (its pips, or a court frame) under an index in the corner; its
// text (rank and suit, "A♠") is the index, so it reads and copies as text.
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SVG = "http://www.w3.org/2000/svg";

// each suit's pip, drawn in a 10x10 box
const PIPS = {
  H: "M5 9.3C2 7 0 5.2 0 3.1 0 1.4 1.3 0 2.8 0 3.8 0 4.6.6 5 1.4 5.4.6 6.2 0 7.2 0 8.7 0 10 1.4 10 3.1 10 5.2 8 7 5 9.3z",
  D: "M5 0 9 5 5 10 1 5z",
  S: "M5 0C3 2.6 0 4.2 0 6.4 0 7.9 1.2 9 2.6 9 3.5 9 4.2 8.6 4.6 8L4 10H6L5.4 8C5.8 8.6 6.5 9 7.4 9 8.8 9 10 7.9 10 6.4 10 4.2 7 2.6 5 0z",
  C: "M5 0C3.6 0 2.5 1.1 2.5 2.5 2.5 3.1 2.7 3.6 3 4 2.8 3.9 2.6 3.9 2.4 3.9 1.1 3.9 0 5 0 6.3 0 7.7 1.1 8.8 2.4 8.8 3.4 8.8 4.2 8.2 4.6 7.5L4 10H6L5.4 7.5C5.8 8.2 6.6 8.8 7.6 8.8 8.9 8.8 10 7.7 10 6.3 10 5 8.9 3.9 7.6 3.9 7.4 3.9 7.2 3.9 7 4 7.3 3.6 7.5 3.1 7.5 2.5 7.5 1.1 6.4 0 5 0z",
};
// where the pips of a 9 and a 10 lie on the face (a face is 50x70; pips of 9x9 around these centres)
const LAYOUTS = {
  "9": [[17, 17], [33, 17], [17, 30], [33, 30], [25, 35], [17, 43], [33, 43], [17, 56], [33, 56]],
  T: [[17, 17], [33, 17], [25, 24], [17, 31], [33, 31], [17, 42], [33, 42], [25, 49], [17, 56], [33, 56]],
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== "") {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function pip(suit, x, y, size, flip = false) {
  const scale = size / 10;
  const turn = flip ? ` rotate(180 5 5)` : "";
  return svg("path", { d: PIPS[suit], transform: `translate(${x - size / 2} ${y - size / 2}) scale(${scale})${turn}` });
}

function face(rank, suit) {
  const drawing = svg("svg", { viewBox: "0 0 50 70", class: "face", "aria-hidden": "true" });
  if (rank === "A") {
    drawing.append(pip(suit, 25, 38, 22));
  } else if (LAYOUTS[rank]) {
    drawing.append(...LAYOUTS[rank].map(([x, y]) => pip(suit, x, y, 9, y > 36)));
  } else {  // a court card: a frame, the suit large, a mark for king (a crown), queen (a circlet) or jack (a bar)
    const marks = { K: "M17 22 20 16 25 21 30 16 33 22z", Q: "M19 20a6 3 0 1 0 12 0a6 3 0 1 0-12 0z",
      J: "M18 18h14v3H18z" };
    drawing.append(svg("rect", { x: 11, y: 12, width: 28, height: 50, rx: 3, class: "court" }),
      svg("path", { d: marks[rank] || "", class: "mark" }), pip(suit, 25, 40, 16));
  }
  return drawing;
}

function card(text) {
  const rank = text[0];
  const suit = text[text.length - 1];
  const index = `${rank === "T" ? "10" : rank}${SUITS[suit] || suit}`;
  return el("span", { class: `card suit-${suit}`, "data-card": text, "data-index": index, title: index },
    el("span", { class: "index" }, index), PIPS[suit] ? face(rank, suit) : null);
}

// a text with the protocol's card codes in it ("marriage 20: KD QD") as people write cards ("K♦ Q♦")
function inWords(text) {
  return String(text).replace(/\b([AKQJT9])([SHDC])\b/g, (_, rank, suit) => (rank === "T" ? "10" : rank) + SUITS[suit]);
}

function backs(count) {
  return Array.from({ length: count }, () => el("span", { class: "card back", "data-card": "hidden" }));
}

// a list of cards as the film writes them ("AS TD") or as a state line does ("AS,TD"; "-" for none)
function cards(text) {
  return text && text !== "-" ? text.split(/[ ,]/).map(card) : [];
}

function labelled(label, ...content) {
  const items = content.flat().filter((x) => x !== null && x !== undefined && x !== "");
  return items.length ? el("div", { class: "line" }, el("span", { class: "label" }, label + " "), items) : null;
}

// where each seat sits around the table, seen from ``bottom``'s chair: a grid area of report.css
const PLACES = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"] };

function place(seat, bottom, players) {
  return (PLACES[players] || PLACES[4])[(seat - bottom + players) % players];
}

// the bar above the table: trump, the target, the hand, and each seat's game total
function scoreboard({ trump, target, hand, names, totals, toAct }) {
  return el("div", { class: "scoreboard" },
    el("span", { class: "trump" }, "trump ", trump ? el("b", { class: `suit-${trump}` }, SUITS[trump]) : el("b", {}, "-")),
    target ? el("span", { class: "target" }, "to ", el("b", {}, target)) : null,
    hand ? el("span", { class: "hand-no" }, "hand ", el("b", {}, hand)) : null,
    names.map((name, seat) => el("span", { class: `total${seat === toAct ? " to-act" : ""}`, "data-seat": seat },
      `${name} `, el("b", {}, totals[seat] ?? 0))));
}
