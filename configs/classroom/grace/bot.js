#!/usr/bin/env node
// Starter bot for uttt-arena (Ultimate Tic-Tac-Toe), in JavaScript (Node.js 20).
//
// It plays a random legal move. Make it better by editing chooseMove() below:
// that is the only function you need to touch.
//
// Run it in a match:   arena match "node bots/starters/js/starter.js" random
// Check it:            arena check "node bots/starters/js/starter.js"
//
// How the bot talks to the arena (all of it is in protocol.md):
//   - The arena (the "referee") writes one line at a time to our standard input.
//   - We answer by writing lines to standard output.
//   - Anything for humans (debugging!) goes to standard error (console.error),
//     never to standard output (console.log).
//
// No packages needed: only Node's built-in `readline` module.

"use strict";
const readline = require("readline");

const BOT_NAME = "JsStarter"; // change me: shown in tournament tables
const BOT_AUTHOR = "your name"; // change me too

// =============================================================================
//  WRITE YOUR STRATEGY HERE
// =============================================================================
//
//   legal   -- the squares you may play now, e.g. ["d4", "e4", "f4"].
//              Never empty. Whatever you return MUST be one of these.
//   last    -- the move just played (usually your opponent's), e.g. "e5",
//              or null if you make the very first move of the game.
//   history -- every move of the game so far, oldest first. X always moves
//              first, so history[0], history[2], ... are X's moves and
//              history[1], history[3], ... are O's.
//   timeMs  -- milliseconds you have for this move. The clock started before
//              you got the request: answer well before it runs out.
//   myMark  -- "X" or "O".
//   random  -- a function returning a number in [0, 1), seeded by the arena.
//              Use it instead of Math.random() and every game can be replayed.
//
// Squares are a column a-i (left to right) and a row 1-9 (top to bottom) of the
// whole 9x9 grid: "a1" is the top-left corner, "e5" the very centre.
// boardAndCell() below turns a square into [board, cell] numbers.
function chooseMove(legal, last, history, timeMs, myMark, random) {
  // Ideas to try, from easy to hard:
  //   1. If a move wins a small board, play it.
  //   2. Don't send your opponent to a board where they can win.
  //   3. Search ahead (minimax), or play random games from each move and keep
  //      the move that wins most often (Monte Carlo).
  return legal[Math.floor(random() * legal.length)];
}

// "h2" -> [3, 5]: the small board (1-9) and the cell inside it (1-9), both
// numbered in reading order (1 = top-left, 5 = centre, 9 = bottom-right).
// Your cell number is the board your opponent must play in next.
function boardAndCell(square) {
  const column = "abcdefghi".indexOf(square[0]); // 0-8, left to right
  const row = Number(square[1]) - 1; // 0-8, top to bottom
  const board = Math.floor(row / 3) * 3 + Math.floor(column / 3) + 1;
  const cell = (row % 3) * 3 + (column % 3) + 1;
  return [board, cell];
}

// =============================================================================
//  Talking to the arena. You should not need to change anything below.
// =============================================================================

// Writes one line to the arena. process.stdout.write hands the line to the
// system at once, so there is nothing to flush; but never call process.exit()
// right after writing, or the line may be lost.
function send(line) {
  process.stdout.write(line + "\n");
}

// Debug output: goes to stderr, which the arena keeps in its logs. Never
// console.log() debug text: the arena would read it as your move.
function debug(text) {
  console.error(`[${BOT_NAME}] ${text}`);
}

// "d4,e4,f4" -> ["d4", "e4", "f4"]; "none" or missing -> [].
function squares(text) {
  return text === undefined || text === "none" ? [] : text.split(",");
}

// A small seeded random generator (SplitMix64). The arena's seed can be as big
// as 2^64 - 1, more than a JavaScript number holds exactly, so it uses BigInt.
function seededRandom(seedText) {
  const MASK = (1n << 64n) - 1n;
  let state = 0n;
  try {
    state = BigInt(seedText) & MASK;
  } catch (e) {
    debug(`bad seed ${seedText}; using 0`);
  }
  return function random() {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    z = z ^ (z >> 31n);
    return Number(z >> 11n) / 2 ** 53; // the top 53 bits as a number in [0, 1)
  };
}

let myMark = "X";
let random = seededRandom("0");
let quitting = false; // set by `quit`: readline may still hand us buffered lines

// Handles one line from the arena.
function handle(line, input) {
  if (quitting) return;
  const words = line.trim().split(/\s+/);
  if (words[0] === "") return; // ignore empty lines
  // "go time 100 last e5" -> command "go", fields {time: "100", last: "e5"}
  const command = words[0];
  const fields = {};
  for (let i = 1; i + 1 < words.length; i += 2) fields[words[i]] = words[i + 1];
  // Later protocol versions may add fields: we only read the ones we know, so
  // unknown fields are ignored automatically.

  if (command === "uttt") {
    // Hello from the arena ("uttt 1"). Introduce ourselves, then `ready`.
    if (words[1] !== "1") debug(`expected protocol version 1, got '${line}'`);
    send(`id name ${BOT_NAME}`);
    send(`id author ${BOT_AUTHOR}`);
    send("ready");
  } else if (command === "newgame") {
    // A new game starts: reset everything that belongs to one game.
    // One process may play many games in a row.
    myMark = fields.mark === "O" ? "O" : "X";
    random = seededRandom(fields.seed || "0");
    debug(`new game as ${myMark} against ${fields.opponent}`);
  } else if (command === "go") {
    // Our turn: answer with exactly one square from `legal`.
    const legal = squares(fields.legal);
    if (legal.length === 0) {
      debug("no legal moves listed; resigning"); // never happens with a correct arena
      send("resign");
      return;
    }
    const last = fields.last === undefined || fields.last === "none" ? null : fields.last;
    const timeMs = Number(fields.time) || 0;
    send(chooseMove(legal, last, squares(fields.moves), timeMs, myMark, random));
  } else if (command === "gameover") {
    // No answer expected. Nice place to log how it went.
    debug(`game over: result ${fields.result} (${fields.reason})`);
  } else if (command === "quit") {
    quitting = true;
    input.close(); // stop reading; Node exits once our last line is written
  } else {
    debug(`ignoring unknown command: '${line}'`);
  }
}

// If the arena goes away while we write, stop quietly instead of crashing.
process.stdout.on("error", () => process.exit(0));

// The arena sends one command per line: readline calls handle() for each.
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => handle(line, input));
input.on("close", () => process.stdin.destroy()); // end of input or quit: we are done
