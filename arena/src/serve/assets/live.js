/* uttt-arena live page: follows one results directory through the server's
 * events (`state`, the whole page state as JSON, sent whenever it changes).
 *
 * The boards are drawn by board.js, the report's drawing, from games sent compact
 * as the report sends them (report/compact.rs): this script decides no rule. Every text a bot
 * controls (names, info, result words) is set with textContent, never as markup.
 * When the server goes away the page says so and reconnects by itself.
 */
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  const $ = (id) => document.getElementById(id);
  const template = $('board-template');
  const tables = JSON.parse($('uttt-tables').textContent);
  const cards = new Map();
  let state = null;
  let source = null;
  let updates = 0;

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* As the terminal says it (eta.rs `words`): to 5 s under a minute, to 10 s
     under ten minutes. */
  function duration(s) {
    if (s < 60) return Math.ceil(s / 5) * 5 + ' s';
    if (s < 600) {
      const tens = Math.floor((s + 5) / 10);
      return Math.floor(tens / 6) + ' min' + (tens % 6 ? ' ' + (tens % 6) * 10 + ' s' : '');
    }
    if (s < 3600) return Math.round(s / 60) + ' min';
    const h = Math.floor(s / 3600);
    return h + ' h ' + Math.round((s - h * 3600) / 60) + ' min';
  }

  function percent(v) {
    return (100 * v).toFixed(1) + '%';
  }

  function signed(v) {
    return (v >= 0 ? '+' : '−') + Math.abs(v).toFixed(1);
  }

  function botLink(name) {
    const a = el('a', 'bot', name);
    a.href = '#bot/' + encodeURIComponent(name);
    return a;
  }

  function renderHeader(s) {
    const words = { running: 'Running', finished: 'Finished', stopped: 'Stopped (not finished)' };
    $('status').textContent = words[s.status] || s.status;
    $('status').dataset.status = s.status;
    $('format').textContent = s.format_words || 'uttt-arena live';
    $('round').textContent = s.round && s.status !== 'finished' ? '· Round ' + s.round.number + ' of ' + s.round.of : '';
    $('progress').textContent = s.total ? s.done + ' of ' + s.total + ' games' : s.done + ' games';
    let eta = '';
    if (s.status === 'running') eta = typeof s.eta_s === 'number' ? '· about ' + duration(s.eta_s) + ' left at this pace' : '· estimating the time left…';
    $('eta').textContent = eta;
    /* The governor holding the run back for a busy machine, in its words. */
    const governor = $('governor');
    governor.hidden = !s.governor;
    governor.textContent = s.governor ? 'Governor: ' + s.governor : '';
    $('bar').max = s.total || Math.max(1, s.done);
    $('bar').value = s.done;
    /* A finished run leads with its result. */
    const result = $('result');
    result.hidden = !(s.status === 'finished' && s.winner);
    if (s.winner) {
      $('winner-name').textContent = s.winner.name;
      $('winner-how').textContent = '(' + s.winner.how + ')';
    }
    document.body.dataset.status = s.status;
  }

  /* The event's own ranking: a Swiss's table or a knockout's bracket, drawn by the
     server with the report's drawing (report/event.rs: every name escaped there,
     as in the page's own HTML), a league's table (report/league.rs), or the
     points of a round robin; the bots left out in their place, with why; the
     round's pairings under it. */
  let eventHtml = null;
  function renderRanking(s) {
    const league = s.format === 'league' || !!s.league_html;
    const titles = { swiss: 'Swiss table', knockout: 'Knockout bracket' };
    $('ranking-title').textContent = league ? 'League table' : titles[s.format] || 'Ranking';
    let when = '';
    let hint = '';
    if (league) {
      hint = "Each student's current version, rated against the reference levels (level 1 = 0); the levels are the lines to reach.";
    } else if (s.format === 'swiss') {
      if (s.status !== 'finished' && s.round) {
        when = s.round.number > 1 ? 'after round ' + (s.round.number - 1) + ' of ' + s.round.of : 'no round finished yet';
      }
      hint = 'Points (a bye counts as won games), then Buchholz, then Sonneborn–Berger.';
    } else if (s.format === 'knockout') {
      hint = 'The winner of each match goes through; scores are points in the match.';
    } else {
      hint = 'Points: a win 1, a draw ½.';
    }
    $('ranking-when').textContent = when;
    $('ranking-hint').textContent = hint;
    const html = (league ? s.league_html : s.event_html) || '';
    if (html !== eventHtml) {
      $('event').innerHTML = html;
      eventHtml = html;
    }
    $('event').hidden = !html;
    $('points-wrap').hidden = !!html;
    if (!html) {
      const body = $('points-body');
      body.textContent = '';
      const rows = s.standings.slice().sort((a, b) => Number(b.points) - Number(a.points) || (s.elo_ranked ? a.rank - b.rank : a.bot.localeCompare(b.bot)));
      let shownRank = 0;
      let last = null;
      rows.forEach((r, i) => {
        if (r.points !== last) shownRank = i + 1;
        last = r.points;
        const tr = el('tr', i === 0 ? 'leader' : '');
        tr.appendChild(el('td', '', String(shownRank)));
        const name = el('th', 'name');
        name.scope = 'row';
        name.title = r.bot;
        name.appendChild(botLink(r.bot));
        tr.appendChild(name);
        tr.appendChild(el('td', 'points', r.points));
        tr.appendChild(el('td', 'tiebreak', String(r.games)));
        tr.appendChild(el('td', 'tiebreak', r.w + '-' + r.d + '-' + r.l));
        body.appendChild(tr);
      });
      (s.left_out || []).forEach((l) => {
        const tr = el('tr', 'left-out');
        tr.appendChild(el('td', '', '–'));
        const name = el('th', 'name', l.name);
        name.scope = 'row';
        tr.appendChild(name);
        const why = el('td', 'why');
        why.colSpan = 3;
        why.appendChild(el('span', 'short', 'not playing: ' + l.short));
        if (l.detail) why.appendChild(el('span', 'detail', ' (' + l.detail + ')'));
        tr.appendChild(why);
        body.appendChild(tr);
      });
    }
    const pairings = $('pairings');
    const round = s.round;
    pairings.hidden = !(round && s.format === 'swiss' && s.status !== 'finished');
    if (!pairings.hidden) {
      $('pairings-title').textContent = 'Round ' + round.number + ' of ' + round.of + ': who plays whom';
      const list = $('pairings-list');
      list.textContent = '';
      round.pairs.forEach((p) => {
        const li = el('li', p.playing ? 'playing' : '');
        li.appendChild(el('span', 'who', p.a));
        li.appendChild(el('span', 'pts', p.games ? p.a_points + '–' + p.b_points : 'v'));
        li.appendChild(el('span', 'who', p.b));
        if (p.playing) li.appendChild(el('span', 'note', 'playing'));
        list.appendChild(li);
      });
      round.byes.forEach((b) => {
        const li = el('li', 'bye');
        li.appendChild(el('span', 'who', b));
        li.appendChild(el('span', 'note', 'bye'));
        list.appendChild(li);
      });
    }
  }

  function renderLive(s) {
    const holder = $('live-games');
    const seen = new Set();
    s.live.forEach((g) => {
      seen.add(g.id);
      let card = cards.get(g.id);
      if (!card) {
        card = el('article', 'live-card');
        card.dataset.id = g.id;
        const head = el('h3', '', 'Game ' + g.id);
        const players = el('p', 'players');
        [['x', 'X ', g.x], ['o', 'O ', g.o]].forEach(([cls, mark, name], k) => {
          if (k > 0) players.appendChild(document.createTextNode(' vs '));
          players.appendChild(el('span', cls, mark + name));
        });
        card.appendChild(head);
        card.appendChild(players);
        card.appendChild(el('p', 'about', g.about));
        card.appendChild(template.content.firstElementChild.cloneNode(true));
        card.appendChild(el('p', 'move'));
        card.appendChild(el('p', 'info'));
        card.appendChild(el('p', 'caption'));
        card.appendChild(el('p', 'badge'));
        holder.appendChild(card);
        cards.set(g.id, card);
      }
      const steps = utttBoard.steps(g.play, tables);
      const ply = steps.length - 1;
      const step = steps[ply];
      utttBoard.draw(card.querySelector('.grid'), steps, utttBoard.states(steps), ply);
      card.dataset.ply = String(ply);
      card.classList.toggle('stale', !g.running);
      const said = ply > 0 && step.n.length ? step.n[0] : 'Start of the game';
      card.querySelector('.move').textContent = 'Ply ' + ply + ': ' + said;
      /* What the engine said (its pv, its tree): small, and not on a projector. */
      card.querySelector('.info').textContent = step.i || '';
      card.querySelector('.caption').textContent = step.c;
      card.querySelector('.badge').textContent = g.running ? '' : 'Unfinished: the run playing it stopped';
    });
    cards.forEach((card, id) => {
      if (!seen.has(id)) {
        card.remove();
        cards.delete(id);
      }
    });
    $('live-empty').hidden = s.live.length > 0;
    $('live-count').textContent = s.live.length > 1 ? '(' + s.live.length + ')' : '';
    /* Finished and nothing on a board: the result takes the room. */
    $('stage').classList.toggle('no-live', s.live.length === 0);
  }

  function renderStandings(s) {
    const body = $('standings-body');
    body.textContent = '';
    /* Numbered only where the fit ranks the bots; otherwise by name, and said so. */
    const league = s.format === 'league';
    $('standings-title').textContent = s.elo_ranked ? 'Standings' : league ? 'Elo over every game of the season (a second view)' : 'Elo (a second view, not the ranking)';
    $('standings-hint').textContent = league
      ? "One fit over every game, with the levels fixed at their ratings: the grades' scale. A student's versions count together here; a grade is the current version's, against the levels only. The League table above is the ranking."
      : s.elo_ranked
      ? 'Elo from one maximum-likelihood fit over the finished games, refit after each; ± is half the 95% interval. Click a bot for its page.'
      : 'Elo from one fit over the games played; ± is half the 95% interval. ' +
        (s.format === 'swiss' || s.format === 'knockout'
          ? 'In a ' + (s.format === 'swiss' ? 'Swiss' : 'knockout') + ' the bots do not all meet, so the fit is undetermined between bots that never met: it is not a ranking, and the bots are listed by name. The ranking is the ' + (s.format === 'swiss' ? 'Swiss table.' : 'bracket.')
          : 'Some bots are not connected by games, so the fit does not rank them against each other: listed by name.');
    document.body.classList.toggle('elo-unranked', !s.elo_ranked);
    const rows = s.elo_ranked ? s.standings : s.standings.slice().sort((a, b) => a.bot.localeCompare(b.bot));
    rows.forEach((r) => {
      const tr = el('tr');
      tr.appendChild(el('td', 'rank', s.elo_ranked ? String(r.rank) : ''));
      const name = el('th', 'name');
      name.scope = 'row';
      name.appendChild(botLink(r.bot));
      tr.appendChild(name);
      [r.games, r.w, r.d, r.l].forEach((v) => tr.appendChild(el('td', '', String(v))));
      const score = el('td', '', percent(r.score));
      score.style.background = r.colour;
      tr.appendChild(score);
      const elo = el('td');
      elo.appendChild(el('strong', '', signed(r.elo)));
      tr.appendChild(elo);
      tr.appendChild(el('td', '', r.err.toFixed(1)));
      body.appendChild(tr);
    });
    const problem = $('standings-problem');
    problem.hidden = !s.standings_problem;
    problem.textContent = s.standings_problem || '';
  }

  function renderFeed(s) {
    const list = $('feed-list');
    list.textContent = '';
    s.feed.forEach((g) => {
      const li = el('li');
      li.dataset.id = g.id;
      li.appendChild(gameLink(g.id, 'id'));
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', 'x', g.x));
      li.appendChild(document.createTextNode(' vs '));
      li.appendChild(el('span', 'o', g.o));
      const result = el('span', 'result', g.result + ' (' + g.plies + ' plies)');
      result.title = g.result;
      li.appendChild(result);
      if (g.fault) li.classList.add('fault');
      if (g.repeats > 0) {
        li.appendChild(el('span', 'repeats', 'and ' + g.repeats + ' earlier game' + (g.repeats === 1 ? '' : 's') + ' lost the same way (' + g.fault + ')'));
      }
      list.appendChild(li);
    });
    $('feed-empty').hidden = s.feed.length > 0;
  }

  function renderCrosstable(s) {
    const table = $('crosstable-table');
    table.textContent = '';
    const names = s.crosstable.names;
    const head = el('thead');
    const hr = el('tr');
    hr.appendChild(el('th', 'name', 'Bot'));
    names.forEach((n, i) => {
      const th = el('th', '', String(i + 1));
      th.title = n;
      hr.appendChild(th);
    });
    head.appendChild(hr);
    table.appendChild(head);
    const body = el('tbody');
    names.forEach((n, i) => {
      const tr = el('tr');
      const th = el('th', 'name', (i + 1) + '. ');
      th.appendChild(botLink(n));
      tr.appendChild(th);
      s.crosstable.cells[i].forEach((c, j) => {
        if (i === j) {
          tr.appendChild(el('td', 'self', '—'));
        } else if (!c) {
          tr.appendChild(el('td', 'none'));
        } else {
          const td = el('td');
          td.style.background = c.colour;
          td.appendChild(el('span', 'big', percent(c.score)));
          td.appendChild(el('span', 'small', c.w + '-' + c.d + '-' + c.l));
          tr.appendChild(td);
        }
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  /* A league's full table with each student's rating history: drawn by the
     server with the report's drawing (report/league.rs, every name escaped
     there), replaced only when it changed. */
  let leagueHtml = null;
  function renderLeague(s) {
    const html = s.league_more_html || '';
    if (html !== leagueHtml) {
      $('league-wrap').innerHTML = html;
      leagueHtml = html;
    }
    $('league-wrap').hidden = !html;
  }

  function render(s) {
    state = s;
    updates += 1;
    document.body.dataset.updates = String(updates);
    document.title = s.name + ' — uttt-arena live';
    $('name').textContent = s.name;
    renderHeader(s);
    renderLive(s);
    renderRanking(s);
    renderLeague(s);
    renderStandings(s);
    renderFeed(s);
    renderCrosstable(s);
    projectorShow();
    projectorLayout(s);
  }

  /* Projector mode lays its pages out again when what they show changed (not
     at every mark of a game on the board). */
  let projectorKey = null;
  function projectorLayout(s) {
    if (!document.body.classList.contains('projector')) return;
    const key = JSON.stringify([s.event_html, s.league_html, s.standings.map((r) => [r.bot, r.points]), s.left_out, s.round, s.status, s.live.length > 0, s.feed.length > 0]);
    if (key === projectorKey) return;
    projectorKey = key;
    utttProjector.layout();
  }

  /* The connection: EventSource retries by itself after a dropped stream; if the
     browser gives up (a refused connection while the server restarts), start over. */
  function connect() {
    source = new EventSource('events');
    source.addEventListener('state', (e) => {
      $('conn').hidden = true;
      document.body.dataset.connected = 'yes';
      render(JSON.parse(e.data));
    });
    source.onopen = () => {
      $('conn').hidden = true;
    };
    source.onerror = () => {
      $('conn').hidden = false;
      document.body.dataset.connected = 'no';
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(connect, 1000);
      }
    };
  }

  /* A link to a finished game's page: #game/<id>. */
  function gameLink(id, className) {
    const a = el('a', className || '', id);
    a.href = '#game/' + encodeURIComponent(id);
    return a;
  }

  /* A page the address names, #<kind>/<name>: the JSON of <kind>/<name> from the
     server, drawn into section `kind` by `fill`; the section is hidden when the
     address names none or the server has none. */
  function showPage(kind, fill) {
    const m = new RegExp('^#' + kind + '/(.*)$').exec(location.hash);
    const section = $(kind);
    section.hidden = true;
    let name = null;
    try {
      name = m ? decodeURIComponent(m[1]) : null;
    } catch (e) {
      return;
    }
    if (name === null) return;
    fetch(kind + '/' + encodeURIComponent(name))
      .then((r) => (r.ok ? r.json() : null))
      .then((page) => {
        if (!page) return;
        fill(page);
        section.hidden = false;
        section.scrollIntoView({ block: 'start' });
      })
      .catch(() => {});
  }

  /* A finished game, fetched compact and stepped through in the report's viewer. */
  const viewer = utttViewer.attach();
  function showGame() {
    showPage('game', (g) => viewer.open({
      id: g.id,
      x: g.x,
      o: g.o,
      about: g.about,
      result: g.result,
      problem: g.problem,
      steps: utttBoard.steps(g.play, tables),
    }, null, false));
  }

  /* A bot's page: its games and faults. */
  function showBot() {
    showPage('bot', (page) => {
      $('bot-name').textContent = page.bot;
      const shown = page.shown.length < page.games ? ' (the newest ' + page.shown.length + ' below)' : '';
      $('bot-summary').textContent = page.games + ' finished game' + (page.games === 1 ? '' : 's') + shown + '.';
      const faults = $('bot-faults');
      faults.textContent = '';
      if (page.faults.length === 0) faults.appendChild(el('li', '', 'None: every game ended on the board.'));
      page.faults.forEach((f) => {
        faults.appendChild(el('li', '', f.reason + ': ' + f.count + ' game' + (f.count === 1 ? '' : 's') + '. Latest: ' + f.example));
      });
      const logs = $('bot-logs');
      logs.hidden = !('command' in page);
      $('bot-command').textContent = page.command || '—';
      $('bot-stderr').textContent = page.stderr || '(nothing written)';
      const body = $('bot-games');
      body.textContent = '';
      page.shown.forEach((g) => {
        const tr = el('tr');
        tr.className = g.outcome;
        const id = el('td');
        id.appendChild(gameLink(g.id));
        tr.appendChild(id);
        [g.colour, g.opponent, g.outcome, g.result].forEach((v) => tr.appendChild(el('td', '', v)));
        body.appendChild(tr);
      });
    });
  }

  /* Projector mode: large type, one game in progress at a time, changing every few
     seconds; the standings beside it. */
  let projectorIndex = 0;
  let projectorTimer = null;
  function projectorShow() {
    if (!document.body.classList.contains('projector')) return;
    const list = Array.from(cards.values());
    list.forEach((c, i) => c.classList.toggle('featured', i === projectorIndex % Math.max(1, list.length)));
  }
  function projector(on) {
    document.body.classList.toggle('projector', on);
    $('projector').setAttribute('aria-pressed', on ? 'true' : 'false');
    if (projectorTimer !== null) clearInterval(projectorTimer);
    projectorTimer = null;
    cards.forEach((c) => c.classList.remove('featured'));
    projectorKey = null;
    if (on) {
      projectorTimer = setInterval(() => {
        projectorIndex += 1;
        projectorShow();
      }, 8000);
      projectorShow();
      utttProjector.start();
      if (state) projectorLayout(state);
    } else {
      utttProjector.stop();
    }
    try {
      history.replaceState(null, '', on ? '?projector' + location.hash : location.pathname + location.hash);
    } catch (e) {
      /* the address is a convenience only */
    }
  }
  $('projector').addEventListener('click', () => projector(!document.body.classList.contains('projector')));

  function route() {
    showBot();
    showGame();
  }
  window.addEventListener('hashchange', route);
  connect();
  route();
  if (/[?&]projector\b/.test(location.search)) projector(true);
})();
