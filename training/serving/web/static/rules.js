// How to play each game, in a player's words, one screen each (from docs/<game>.md). The
// picture beside the words is the game's own board at its start, drawn by the server
// (/picture/<game>.svg).

export const RULES = {
  linecatch: {
    title: "Linecatch",
    goal: "Catch more lines than your opponent.",
    points: [
      "On your turn, blacken one white square (click it).",
      "A line is a whole row or a whole column (in pro mode, every diagonal of 3 or more squares too).",
      "Blacken the last white square of a line and you catch it: you score its length. One square can catch several lines.",
      "After a catch you move again, as long as white squares remain; otherwise the turn passes.",
      "When every square is black, more points wins. Beware the square that leaves a line one square short: it hands the line to your opponent.",
    ],
  },
  loom: {
    title: "Loom",
    goal: "Weave the cloth whose rows and columns score most.",
    points: [
      "Each of you has a 4×4 cloth. Each round two dyed threads (two dice, 1–6) are thrown.",
      "The drafter (the seats take turns) weaves one of the threads into an empty cell of their own cloth; the rival weaves the other into theirs.",
      "Touching law: a dye may not go next to (edge to edge) the same dye in the same cloth, unless no clean cell is left for it.",
      "Each row and column scores the sum of its different dyes, plus the bounty (8) when it is full with four different dyes.",
      "After sixteen rounds both cloths are full: more points wins.",
    ],
  },
  fill: {
    title: "Fill",
    goal: "Do not be the one left without a legal cell.",
    points: [
      "Take turns filling empty cells; filled cells belong to nobody.",
      "A fill must touch a filled cell (sides or corners), must not make three filled cells in a row across or down, and must not complete a solid 2×2 block.",
      "The first player seeds any cell; the second then chooses stay (they move next) or swap (the seeder moves next).",
      "A player whose turn starts with no legal cell loses: there are no draws.",
      "Options: rocks are never filled; gems give tokens (Double: two fills, Pass: end the turn); traps spring on the opponent's next fill of that cell; clocks give each clocked player a few minutes in all.",
    ],
  },
  uzor: {
    title: "Uzor",
    goal: "Complete patterns of the Map for points; your secret goal scores double.",
    points: [
      "Tiles show a motif (cedar, sun, wave, bird, star) on a colour. Your hand and the market are open; your goal is secret.",
      "Place a hand tile next to a tile on the table, matching at least one open neighbour by motif or colour (a cell touching only stones takes anything).",
      "If your tile completes patterns of the Map that are still open, close one (its points; its tiles become stones) or continue (another turn straight away).",
      "Then take a market tile. If you cannot place, discard one and take.",
      "The game ends when no tile fits, or after 20 turns without a placement: more points wins.",
    ],
  },
  knot: {
    title: "Knot",
    goal: "Close ribbons that cross many squares.",
    points: [
      "Lay strands (Cut, Run, Hook, Flip) in the squares; strands joined end to end make ribbons.",
      "Close a ribbon (its two ends meet) to bank one point per crossing inside the board it passes.",
      "Grow your ribbon into another player's open end to capture the whole ribbon; a closed ribbon is safe.",
      "A turn places 1 strand (the first turn), 2 (the next two), then up to 3 (press End to stop), then draws back up to 5 from the market or the blind pile.",
      "The game ends when nobody can place; the longest closed ribbon scores 5 more.",
    ],
  },
};

export const PLAYING = [
  "Click a highlighted part of the board. Where a part holds several moves, pick one under the board (it is drawn pale first), then Play.",
  "Keyboard: arrow keys move a cursor, Enter plays, Esc cancels a choice.",
  "Hint asks a quick bot for a move (counted in the log); Undo takes back a step of your turn where the game allows it.",
];

// Fill the element with data-rules with the rules of `short` (a game's short name).
export function showRules(container, short) {
  const rules = RULES[short];
  container.replaceChildren();
  if (!rules) {
    return;
  }
  const title = document.createElement("h3");
  title.textContent = `How to play ${rules.title}`;
  const goal = document.createElement("p");
  goal.className = "goal";
  goal.textContent = rules.goal;
  const list = document.createElement("ul");
  for (const point of [...rules.points, ...PLAYING]) {
    const item = document.createElement("li");
    item.textContent = point;
    list.appendChild(item);
  }
  const picture = document.createElement("img");
  picture.src = `/picture/${short}.svg`;
  picture.alt = `a ${rules.title} board at the start`;
  picture.className = "rules-picture";
  container.append(title, goal, picture, list);
}
