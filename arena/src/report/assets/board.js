/* uttt-arena: the one drawing of a position, shared by report.html's game viewer
 * and the live page of `arena serve`.
 *
 * A game comes compact, as arena/src/report/compact.rs writes it: one symbol per
 * mark, the boards whose state changed and when, the free moves with the boards
 * the engine allows, the end, and word tables. `steps` turns that into one step
 * per position — the square and mark just played (s, m), the nine boards' states
 * (b: `.` open, X/O claimed, D drawn), the boards where the next mark may go (p),
 * the move in words (n), who is to move (c), opening move (o), think time (t) and
 * info (i). Neither applies a rule of the game: where the player was sent, the
 * board in play is the one the next recorded mark went to; everything else the
 * rules decide is in the data.
 */
'use strict';
const utttBoard = {
  /* The steps of `play` ([opening, moves, claims, free, end, endCaption, details])
     with the words of `tables`. */
  steps(play, tables) {
    const [opening, moves, claims, free, end, endCaption, details] = play;
    if (!tables.index) {
      tables.index = {};
      Array.from(tables.alphabet).forEach((c, k) => { tables.index[c] = k; });
    }
    const at = (c) => tables.index[c];
    const squares = Array.from(moves, at);
    const changes = {};
    for (let k = 0; k + 2 < claims.length; k += 3) {
      const ply = at(claims[k]);
      (changes[ply] = changes[ply] || []).push([Number(claims[k + 1]) - 1, claims[k + 2]]);
    }
    const freeAt = {};
    let allowed = '';
    free.split(' ').filter((e) => e).forEach((e) => {
      if (e.length > 1) allowed = e.slice(1); /* else: the boards of the free move before */
      freeAt[at(e[0])] = allowed;
    });
    const last = squares.length;
    const boards = Array.from('.........');
    const steps = [];
    for (let ply = 0; ply <= last; ply++) {
      const step = { b: '', p: '', n: [], c: '' };
      if (ply > 0) {
        const mark = ply % 2 === 1 ? 0 : 1;
        step.s = squares[ply - 1];
        step.m = mark === 0 ? 'X' : 'O';
        step.o = ply <= opening;
        step.n.push(tables.played[((step.o ? 2 : 0) + mark) * 81 + step.s]);
        if (details) {
          if (typeof details.t[ply - 1] === 'number') step.t = details.t[ply - 1];
          step.i = (details.i && details.i[ply]) || '';
        }
      }
      (changes[ply] || []).forEach(([board, state]) => {
        boards[board] = state;
        step.n.push(tables.claims[(state === 'X' ? 0 : state === 'O' ? 1 : 2) * 9 + board]);
      });
      step.b = boards.join('');
      if (ply === last) {
        step.p = end;
        step.c = endCaption == null ? '' : tables.captions[endCaption];
      } else {
        const side = ply % 2 === 0 ? 0 : 1;
        const sent = ply in freeAt ? null : Math.floor(squares[ply] / 9);
        step.p = sent === null ? freeAt[ply] : String(sent + 1);
        step.c = tables.captions[side * 10 + (sent === null ? 9 : sent)];
      }
      steps.push(step);
    }
    return steps;
  },

  /* The nine boards' states at every step. */
  states(steps) {
    return steps.map((s) => s.b);
  },

  /* Draws step `ply` of `steps` into `grid` (an element holding the nine `.board`s
     of the page's board markup). */
  draw(grid, steps, states, ply) {
    const step = steps[ply];
    const marks = new Array(81).fill('');
    for (let i = 1; i <= ply; i++) marks[steps[i].s] = steps[i].m;
    const last = ply > 0 ? step.s : -1;
    grid.querySelectorAll('.cell').forEach((cell, i) => {
      const m = marks[i];
      cell.className = 'cell' + (m === 'X' ? ' x' : m === 'O' ? ' o' : '') + (i === last ? ' last' : '');
      cell.setAttribute('aria-label', cell.dataset.square + (m ? ' ' + m : ''));
    });
    grid.querySelectorAll('.board').forEach((board, b) => {
      if (!board.dataset.name) board.dataset.name = board.getAttribute('aria-label');
      const state = states[ply].charAt(b);
      const inPlay = step.p.indexOf(String(b + 1)) >= 0;
      board.classList.toggle('won-x', state === 'X');
      board.classList.toggle('won-o', state === 'O');
      board.classList.toggle('drawn', state === 'D');
      board.classList.toggle('in-play', inPlay);
      let label = board.dataset.name;
      if (state === 'X' || state === 'O') label += ', claimed by ' + state;
      if (state === 'D') label += ', drawn';
      if (inPlay) label += ', in play';
      board.setAttribute('aria-label', label);
    });
  },
};
