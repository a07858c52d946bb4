// pinochle-arena: drawing cards, shared by the report's viewer (report.js) and the human seat (play.js).
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

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

function card(text) {
  const rank = text[0] === "T" ? "10" : text[0];
  const suit = text[text.length - 1];
  return el("span", { class: `card suit-${suit}`, "data-card": text }, rank, SUITS[suit] || suit);
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

