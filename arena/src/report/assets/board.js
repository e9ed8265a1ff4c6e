/* uttt-arena: the one drawing of a position, shared by report.html's game viewer
 * and the live page of `arena serve`.
 *
 * A game comes as the steps the arena computed with its rules engine: per step the
 * square and mark just played (s, m), the nine boards' states where they change (b:
 * `.` open, X/O claimed, D drawn) and the boards where the next mark may go (p). The
 * drawing applies no rule of the game: it marks cells, frames the boards in play,
 * washes claimed and drawn boards, and marks the last move.
 */
'use strict';
const utttBoard = {
  /* The nine boards' states at every step (carried forward where not sent). */
  states(steps) {
    const states = [];
    steps.forEach((s, k) => states.push(s.b || states[k - 1] || '.........'));
    return states;
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
