/* uttt-arena: the game viewer, shared by report.html and the live page of
 * `arena serve`: one implementation of stepping through a game.
 *
 * It fills the viewer markup that arena/src/report/page.rs writes (`viewer()`):
 * the nine boards drawn by board.js, the move in words, who is to move, the bot,
 * its think time and info, the result, a protocol transcript, the controls (first,
 * previous, play, next, last, a slider; arrow keys, Home and End) and, on a phone,
 * the boards in play drawn large. A game is given as
 * { id, x, o, about, result, problem, transcript, steps } with the steps of
 * utttBoard.steps. Text written by bots is only ever set with textContent.
 */
'use strict';
const utttViewer = {
  /* options.onStep(game, ply): after each step is drawn with remember set (the
     report puts it in the address); options.missing: what to say for a think time
     or info that the data left out ('—' when it was never there). */
  attach(options = {}) {
    const $ = (id) => document.getElementById(id);
    const viewer = $('viewer');
    const boards = Array.from($('v-grid').querySelectorAll('.board'));
    const boardNames = boards.map((b) => b.getAttribute('aria-label'));
    const slider = $('v-slider');

    let current = null;
    let boardStates = [];
    let ply = 0;
    let timer = null;

    function lastPly() {
      return current ? current.steps.length - 1 : 0;
    }

    function formatMs(t) {
      if (t >= 1000) return (t / 1000).toFixed(2) + ' s';
      if (t >= 10) return t.toFixed(1) + ' ms';
      return t.toFixed(2) + ' ms';
    }

    function paragraph(text, className) {
      const p = document.createElement('p');
      p.textContent = text;
      if (className) p.className = className;
      return p;
    }

    /* `remember`: tell options.onStep (the report puts the game and ply in the
       address, #G0001/12); not done for the game opened by default. */
    function render(remember = true) {
      const step = current.steps[ply];
      utttBoard.draw($('v-grid'), current.steps, boardStates, ply);

      viewer.dataset.ply = String(ply);
      $('v-ply').textContent = String(ply);
      $('v-plies').textContent = String(lastPly());
      slider.max = String(lastPly());
      slider.value = String(ply);

      const lines = $('v-lines');
      lines.textContent = '';
      if (ply === 0) {
        lines.appendChild(paragraph('Start of the game'));
      } else {
        step.n.forEach((line, k) => lines.appendChild(paragraph(line, k > 0 ? 'event' : '')));
      }
      $('v-caption').textContent = step.c || (ply === lastPly() ? 'Game over' : '');
      let bot = '—';
      if (ply > 0) bot = step.o ? 'opening move' : (step.m === 'X' ? current.x : current.o) + ' (' + step.m + ')';
      $('v-bot').textContent = bot;
      const left = ply > 0 && !('i' in step) && options.missing ? options.missing : '—';
      $('v-think').textContent = typeof step.t === 'number' ? formatMs(step.t) : left;
      $('v-info').textContent = step.i || left;

      renderFocus(step);
      if (remember && options.onStep) options.onStep(current, ply);
    }

    /* On a phone the grid is a small overview; the boards where the next mark may go
       (every open board on a free move) are drawn large below it. Tapping a board of
       the overview shows that one instead, until the next step. */
    function renderFocus(step, picked) {
      const holder = $('v-focus-boards');
      holder.textContent = '';
      let show = Array.from(step.p, (d) => Number(d) - 1);
      let title = step.c;
      if (typeof picked === 'number') {
        show = [picked];
        title = 'Board you picked';
      } else if (show.length === 0 && ply > 0) {
        show = [Math.floor(step.s / 9)];
        title = 'Last move';
      }
      $('v-focus-title').textContent = title;
      show.forEach((b) => {
        const wrap = document.createElement('div');
        wrap.className = 'focus-board';
        const name = document.createElement('span');
        name.className = 'name';
        name.textContent = boardNames[b];
        const copy = boards[b].cloneNode(true);
        copy.removeAttribute('role');
        wrap.appendChild(name);
        wrap.appendChild(copy);
        holder.appendChild(wrap);
      });
    }

    function go(target) {
      if (!current) return;
      const next = Math.max(0, Math.min(lastPly(), target));
      if (next === ply && viewer.dataset.ply === String(ply)) return;
      ply = next;
      render();
    }

    function stop() {
      if (timer !== null) {
        clearInterval(timer);
        timer = null;
        $('v-play').setAttribute('aria-label', 'Play');
        $('v-play').classList.remove('playing');
      }
    }

    function play() {
      if (timer !== null) {
        stop();
        return;
      }
      if (ply === lastPly()) go(0);
      $('v-play').setAttribute('aria-label', 'Pause');
      $('v-play').classList.add('playing');
      timer = setInterval(() => {
        if (ply >= lastPly()) stop();
        else go(ply + 1);
      }, 650);
    }

    /* Opens `game` at `atPly` (its end when not a number). */
    function open(game, atPly, remember = true) {
      stop();
      current = game;
      boardStates = utttBoard.states(game.steps);
      const end = game.steps.length - 1;
      ply = typeof atPly === 'number' && atPly >= 0 ? Math.min(atPly, end) : end;
      $('v-title').textContent = 'Game ' + game.id;
      const players = $('v-players');
      players.textContent = '';
      [['x', 'X ', game.x], ['o', 'O ', game.o]].forEach(([cls, mark, name], k) => {
        if (k > 0) players.appendChild(document.createTextNode(' vs '));
        const span = document.createElement('span');
        span.className = cls;
        span.textContent = mark + name;
        players.appendChild(span);
      });
      $('v-about').textContent = game.about;
      $('v-result').textContent = game.result;
      const problem = $('v-problem');
      problem.hidden = !game.problem;
      problem.textContent = game.problem ? 'This game does not replay cleanly: ' + game.problem : '';
      const transcript = $('v-transcript');
      transcript.hidden = !game.transcript;
      transcript.open = false;
      transcript.querySelector('pre').textContent = game.transcript || '';
      viewer.dataset.game = game.id;
      render(remember);
    }

    function viewerInView() {
      const r = viewer.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    }

    /* Arrow keys, Home and End step the game while the viewer has the focus, or while
       nothing has it and the viewer is on screen; form fields keep their own keys. */
    document.addEventListener('keydown', (e) => {
      if (!current || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target;
      if (target instanceof Element && target.closest('select, textarea, input')) return;
      const active = document.activeElement;
      const inViewer = active instanceof Element && viewer.contains(active);
      const idle = !active || active === document.body || active === document.documentElement;
      if (!inViewer && !(idle && viewerInView())) return;
      const moves = {
        ArrowLeft: () => go(ply - 1),
        ArrowRight: () => go(ply + 1),
        Home: () => go(0),
        End: () => go(lastPly()),
      };
      const action = moves[e.key];
      if (!action) return;
      e.preventDefault();
      stop();
      action();
    });

    slider.addEventListener('input', () => {
      stop();
      go(Number(slider.value));
    });
    $('v-first').addEventListener('click', () => { stop(); go(0); });
    $('v-prev').addEventListener('click', () => { stop(); go(ply - 1); });
    $('v-next').addEventListener('click', () => { stop(); go(ply + 1); });
    $('v-last').addEventListener('click', () => { stop(); go(lastPly()); });
    $('v-play').addEventListener('click', play);
    boards.forEach((board, b) => {
      board.addEventListener('click', () => {
        if (!current || getComputedStyle($('v-focus')).display === 'none') return;
        renderFocus(current.steps[ply], b);
        $('v-focus').scrollIntoView({ block: 'start' });
      });
    });


    return {
      open,
      current: () => current,
      inView: viewerInView,
      element: viewer,
    };
  },
};
