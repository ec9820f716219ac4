/*
 * The runs page's script (served by src/scale/runs-page.ts; text.js before it): the caller's
 * conversations (GET /sessions) and runs (GET /runs), newest first; start either; open one to read
 * its whole event stream (GET …/events) and follow it; continue a conversation (POST
 * /sessions/:id/messages), interrupt its turn or end it (DELETE), cancel a run, answer approvals,
 * and read what it changed in its worktree (GET …/diff). Vanilla JS, nothing fetched from elsewhere.
 *
 * What is open lives in the URL (#session=<id> or #run=<id>): a reload opens the stream afresh,
 * which replays it from its first event, so the view is rebuilt from the events alone and then
 * follows them. Event data only ever reaches the page as textContent, never as markup.
 *
 * The API's token comes in the URL's fragment (/#token=…, which no request carries): the page keeps
 * it in the tab's sessionStorage, takes it out of the address bar, and sends it as a bearer token
 * with every call. The event stream is read with fetch (EventSource cannot send a header), resuming
 * from the last entry id with Last-Event-ID as EventSource would.
 */
'use strict';
(function () {
  var $ = function (id) {
    return document.getElementById(id);
  };
  // The library's text rules (text.js).
  var isObject = pageText.isObject,
    StreamedText = pageText.StreamedText,
    messageText = pageText.messageText,
    outputText = pageText.toolOutputText,
    costText = pageText.costText,
    changesText = pageText.changesText,
    whenText = pageText.whenText;
  /** What is on screen: `{kind: 'session'|'run', id, view, stop}`, or null. */
  var current = null;

  /** The bearer token: from the fragment once (then out of the address bar), else the tab's copy. */
  var token = (function () {
    var params = new URLSearchParams(location.hash.slice(1));
    var given = params.get('token');
    if (given) {
      sessionStorage.setItem('cli-subprocess-core-token', given);
      params.delete('token');
      history.replaceState(null, '', location.pathname + (params.toString() ? '#' + params.toString() : ''));
    }
    return sessionStorage.getItem('cli-subprocess-core-token') || '';
  })();
  function authorized(headers) {
    headers.authorization = 'Bearer ' + token;
    return headers;
  }

  /** An element with its class, test id and text: event data goes in as textContent only. */
  function el(tag, className, testId, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (testId) node.dataset.testid = testId;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clip(text) {
    return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
  }
  /** The API path of a session or a run (`kind`), and `rest` after it. */
  function apiPath(kind, id, rest) {
    return (kind === 'session' ? '/sessions/' : '/runs/') + encodeURIComponent(id) + rest;
  }

  /** Calls the API: answers the JSON answer ({} for none), or fails with the API's `error`. */
  function call(method, path, body) {
    var init = { method: method, headers: authorized({}) };
    if (method === 'POST') {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body || {});
    }
    return fetch(path, init).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (answer) {
          if (!response.ok) throw new Error(answer.error || 'HTTP ' + response.status);
          return answer;
        });
    });
  }
  function post(path, body) {
    return call('POST', path, body);
  }

  /** A tool's input for reading: its shell command when it has one, else its JSON. */
  function inputText(input) {
    if (isObject(input) && typeof input.command === 'string') return '$ ' + input.command;
    return clip(JSON.stringify(input === undefined ? {} : input, null, 2));
  }

  /**
   * What an approval asks, in a line or two: the call's input (Claude's input, an ACP agent's
   * toolCall.rawInput, Codex's command or file changes) and the CLI's own words for it.
   */
  function approvalSummary(details) {
    var d = isObject(details) ? details : {};
    var call = isObject(d.toolCall) ? d.toolCall : {};
    var input = isObject(d.input)
      ? d.input
      : isObject(call.rawInput)
        ? call.rawInput
        : typeof d.command === 'string'
          ? { command: d.command }
          : null;
    var what = input ? inputText(input) : Array.isArray(d.changes) ? d.changes.length + ' file change(s)' : clip(JSON.stringify(d));
    var why = [d.description, call.title, d.reason].filter(function (text) {
      return typeof text === 'string' && text !== '';
    })[0];
    return why ? why + '\n' + what : what;
  }

  function setStatus(state, text) {
    $('status').dataset.state = state;
    $('status').textContent = text;
  }

  /**
   * Follows a server-sent event stream with fetch, as EventSource would: each message's data to
   * onMessage, then onEnd at 'event: end' (or a 404: the run is unknown); a broken connection is
   * opened again a second later from the last id seen. Answers a function that stops it.
   */
  function followEvents(path, onMessage, onEnd, onState) {
    var stopped = false;
    var lastId = null;
    var controller = null;
    function connect() {
      if (stopped) return;
      controller = new AbortController();
      var headers = authorized({ accept: 'text/event-stream' });
      if (lastId !== null) headers['last-event-id'] = lastId;
      fetch(path, { headers: headers, signal: controller.signal })
        .then(function (response) {
          if (response.status === 404) {
            stopped = true;
            onEnd();
            return;
          }
          if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
          onState(true);
          var reader = response.body.getReader();
          var decoder = new TextDecoder();
          var buffer = '';
          function pump() {
            return reader.read().then(function (chunk) {
              if (chunk.done) throw new Error('the stream broke off');
              buffer += decoder.decode(chunk.value, { stream: true });
              var at;
              while ((at = buffer.indexOf('\n\n')) >= 0) {
                var frame = buffer.slice(0, at);
                buffer = buffer.slice(at + 2);
                var id = null,
                  name = 'message',
                  data = [];
                frame.split('\n').forEach(function (line) {
                  if (line.indexOf('id: ') === 0) id = line.slice(4);
                  else if (line.indexOf('event: ') === 0) name = line.slice(7);
                  else if (line.indexOf('data: ') === 0) data.push(line.slice(6));
                });
                if (name === 'end') {
                  stopped = true;
                  controller.abort();
                  onEnd();
                  return;
                }
                if (id !== null) lastId = id;
                if (data.length > 0 && name === 'message') onMessage(data.join('\n'));
              }
              return pump();
            });
          }
          return pump();
        })
        .catch(function () {
          if (stopped) return;
          onState(false);
          setTimeout(connect, 1000);
        });
    }
    connect();
    return function () {
      stopped = true;
      if (controller) controller.abort();
    };
  }

  /**
   * Shows `target` (`{kind, id}`, from the URL) from its first event on, or nothing when null. A
   * conversation has a message box, Interrupt (for its running turn) and End; a run has Cancel.
   */
  function show(target) {
    if (current) current.stop();
    current = null;
    clearTimeout(diffTimer);
    $('transcript').replaceChildren();
    $('diff-box').hidden = true;
    $('diff-box').open = false;
    $('run').hidden = !target;
    markCurrent();
    if (!target) return;
    var session = target.kind === 'session';
    $('run-kind').textContent = session ? 'Conversation' : 'Run';
    $('run-id').textContent = target.id;
    $('cost').textContent = '';
    $('connection').hidden = true;
    $('cancel').textContent = session ? 'Interrupt' : 'Cancel';
    // A conversation's Interrupt waits for a turn; a run's Cancel works at once (before a worker takes it too).
    $('cancel').disabled = session;
    $('end').hidden = !session;
    $('end').disabled = false;
    $('message-form').hidden = !session;
    $('send').disabled = false;
    $('message-error').hidden = true;
    if (session) setStatus('idle', 'idle');
    else setStatus('waiting', 'waiting for a worker');
    // Without a Last-Event-ID the stream starts at the first event: the view is rebuilt from them.
    var view = new RunView(target);
    var stop = followEvents(
      apiPath(target.kind, target.id, '/events'),
      function (data) {
        view.render(JSON.parse(data));
      },
      // Over (or unknown): nothing more to follow.
      function () {
        $('connection').hidden = true;
        view.ended();
      },
      function (connected) {
        $('connection').hidden = connected;
      },
    );
    current = { kind: target.kind, id: target.id, view: view, stop: stop };
    markCurrent();
    // A conversation's figures are its record's (all its turns); a run's come with its events.
    if (session) showRecordCost(current);
  }

  /** The cost bar of `shown` from its record (a conversation: every turn's usage added up), if it is still on screen. */
  function showRecordCost(shown) {
    call('GET', apiPath(shown.kind, shown.id, '')).then(
      function (record) {
        if (current === shown) $('cost').textContent = costText(record.usage);
      },
      function () {
        // Unknown or gone: the stream says so.
      },
    );
  }

  var diffTimer = null;
  /** Shows the workspace's diff of what is on screen (soon: a replay has many results, the last one counts). */
  function loadDiffSoon(changes) {
    clearTimeout(diffTimer);
    var shown = current;
    diffTimer = setTimeout(function () {
      fetch(apiPath(shown.kind, shown.id, '/diff'), { headers: authorized({}) })
        .then(function (response) {
          return response.ok ? response.text() : null;
        })
        .then(
          function (patch) {
            if (current !== shown || patch === null) return;
            $('diff-summary').textContent = 'Changes: ' + changesText(changes);
            $('diff').textContent = patch;
            $('diff-box').hidden = false;
          },
          function () {
            // Not shown: the next result asks again.
          },
        );
    }, 200);
  }

  /** The transcript of one conversation or run, built event by event. */
  function RunView(target) {
    this.kind = target.kind;
    this.id = target.id;
    this.transcript = $('transcript');
    this.text = new StreamedText();
    this.thought = new StreamedText();
    /** The text or thinking block deltas are appended to; null after anything else. */
    this.open = null;
    this.tools = new Map();
    this.approvals = new Map();
    this.events = 0;
    this.finished = false;
    /** A conversation: the number of the turn its events are of (0 before the first). */
    this.turn = 0;
  }

  RunView.prototype.render = function (event) {
    var p = event.payload || {};
    if (this.events++ === 0 && !this.finished && this.kind === 'run') setStatus('running', 'running');
    switch (event.kind) {
      case 'user_message':
        this.userMessage(p);
        break;
      case 'assistant_delta':
        this.say('text', this.text.delta(p.content || ''));
        break;
      case 'assistant_message':
        this.whole('text', this.text.whole(messageText(p.content)));
        break;
      case 'thinking':
        if (isObject(p.metadata) && p.metadata.delta === true) this.say('thinking', this.thought.delta(p.content || ''));
        else this.whole('thinking', this.thought.whole(p.content || ''));
        break;
      case 'tool_use':
        this.tool(p.tool_call_id, p.tool_name, p.input);
        break;
      case 'tool_result':
        this.toolResult(p);
        break;
      case 'approval_requested':
        this.requested(p);
        break;
      case 'approval_resolved':
        this.resolved(p);
        break;
      case 'cost_update':
        this.cost(p);
        break;
      case 'error':
        this.error(p);
        break;
      case 'result':
        this.result(p);
        break;
      default:
        break;
    }
  };

  /**
   * A conversation's message: a turn begins. Only the server's own (its turn's number in
   * metadata.turn): a CLI's echo of the prompt (Codex's) has none and would say it twice.
   */
  RunView.prototype.userMessage = function (p) {
    var turn = isObject(p.metadata) ? p.metadata.turn : undefined;
    if (typeof turn !== 'number') return;
    this.turn = turn;
    this.text = new StreamedText();
    this.thought = new StreamedText();
    var node = el('div', 'user-message', 'user-message', messageText(p.content));
    node.dataset.turn = String(turn);
    this.add(node);
    this.finished = false;
    setStatus('running', 'turn ' + turn + ' running');
    $('cancel').disabled = false;
  };

  /** Streamed text or thinking: appended to the open block of its kind, or a new block. */
  RunView.prototype.say = function (kind, text) {
    if (text === '') return;
    if (!this.open || this.open.kind !== kind) {
      var node = kind === 'text' ? el('div', 'assistant-text', 'assistant-text') : el('div', 'thinking', 'thinking');
      this.add(node);
      this.open = { kind: kind, node: node };
    }
    this.open.node.textContent += text;
  };

  /** A whole message: what its deltas did not show, then its block is closed (the next message is a new one). */
  RunView.prototype.whole = function (kind, rest) {
    this.say(kind, rest);
    if (this.open && this.open.kind === kind) this.open = null;
  };

  RunView.prototype.add = function (node) {
    this.open = null;
    this.transcript.append(node);
  };

  /** A tool call's card, made once per call id (a CLI may announce a call again). */
  RunView.prototype.tool = function (id, name, input) {
    var card = id ? this.tools.get(id) : undefined;
    if (card) return card;
    card = el('div', 'tool', 'tool-call');
    card.dataset.state = 'running';
    if (id) card.dataset.toolCallId = id;
    card.append(el('div', 'tool-name', 'tool-name', name || 'tool'), el('pre', 'tool-input', 'tool-input', inputText(input)));
    this.add(card);
    if (id) this.tools.set(id, card);
    return card;
  };

  RunView.prototype.toolResult = function (p) {
    var card = this.tool(p.tool_call_id, null, {});
    var output = card.querySelector('[data-testid="tool-output"]') || card.appendChild(el('pre', 'tool-output', 'tool-output'));
    output.textContent = clip(outputText(p.content)) || (p.is_error ? 'The tool call failed.' : '(no output)');
    card.dataset.state = p.is_error ? 'error' : 'done';
  };

  /** An approval: in its tool call's card when that came first, with buttons that send the answer. */
  RunView.prototype.requested = function (p) {
    if (!p.approval_id || this.approvals.has(p.approval_id)) return;
    var approvalId = p.approval_id;
    var box = el('div', 'approval', 'approval');
    box.dataset.approvalId = approvalId;
    box.dataset.state = 'pending';
    var allow = el('button', 'allow', 'approval-allow', 'Allow');
    var deny = el('button', 'deny', 'approval-deny', 'Deny');
    var decision = el('span', 'approval-decision', 'approval-decision', 'waiting for an answer');
    allow.type = deny.type = 'button';
    var path = apiPath(this.kind, this.id, '/approvals/' + encodeURIComponent(approvalId));
    var answer = function (choice) {
      allow.disabled = deny.disabled = true;
      decision.textContent = 'sending ' + choice + '…';
      post(path, { decision: choice }).then(
        function () {
          if (box.dataset.state === 'pending') decision.textContent = choice + ' sent, waiting for the CLI';
        },
        function (error) {
          if (box.dataset.state !== 'pending') return;
          allow.disabled = deny.disabled = false;
          decision.textContent = 'not sent: ' + error.message;
        },
      );
    };
    allow.onclick = function () {
      answer('allow');
    };
    deny.onclick = function () {
      answer('deny');
    };
    var actions = el('div', 'approval-actions');
    actions.append(allow, deny, decision);
    box.append(
      el('div', 'approval-subject', 'approval-subject', 'Approve ' + (p.subject || 'a tool call') + '?'),
      el('pre', 'approval-details', 'approval-details', approvalSummary(p.details)),
      actions,
    );
    var card = isObject(p.metadata) && p.metadata.tool_call_id ? this.tools.get(p.metadata.tool_call_id) : undefined;
    if (card) card.append(box);
    else this.add(box);
    this.approvals.set(approvalId, { box: box, buttons: [allow, deny], decision: decision });
  };

  var DECIDED = new Map([
    ['allow', 'Allowed'],
    ['deny', 'Denied'],
    ['cancelled', 'Withdrawn'],
  ]);
  var BY = new Map([
    ['policy', 'by the run’s approval policy'],
    ['timeout', 'nobody answered in time'],
    ['withdrawn', 'the turn ended first'],
  ]);

  RunView.prototype.resolved = function (p) {
    var approval = this.approvals.get(p.approval_id);
    if (!approval) return;
    var decision = String(p.decision);
    approval.box.dataset.state = decision;
    approval.buttons.forEach(function (button) {
      button.disabled = true;
    });
    var by = isObject(p.metadata) ? BY.get(p.metadata.answered_by) : undefined;
    approval.decision.textContent = [DECIDED.get(decision) || decision, by, p.reason].filter(Boolean).join(' · ');
  };

  RunView.prototype.cost = function (p) {
    // A conversation's cost is its record's, every turn added up (read at each turn's end).
    if (this.kind === 'run') $('cost').textContent = costText(p);
  };

  RunView.prototype.error = function (p) {
    var node = el(
      'div',
      'error',
      'error',
      (p.severity || 'error') + (p.code ? ' (' + p.code + ')' : '') + ': ' + (p.message || 'no message'),
    );
    node.dataset.severity = p.severity || 'error';
    this.add(node);
  };

  RunView.prototype.result = function (p) {
    var status = String(p.status);
    var session = this.kind === 'session';
    var what = session ? 'Turn ' + this.turn + ' ' : 'Run ';
    var node = el('div', 'result', 'result', what + status + (p.stop_reason ? ' (' + p.stop_reason + ')' : ''));
    node.dataset.status = status;
    this.add(node);
    this.finished = true;
    // A conversation waits for its next message; a run is over.
    if (session) setStatus('idle', 'idle');
    else setStatus(status, status);
    $('cancel').disabled = true;
    var changes = isObject(p.metadata) ? p.metadata.changes : undefined;
    if (changesText(changes) !== '') loadDiffSoon(changes);
    refreshSoon();
  };

  /** The stream ended: the run is over, the conversation closed (an unknown or expired one ends at once, with no events). */
  RunView.prototype.ended = function () {
    $('cancel').disabled = true;
    $('end').disabled = true;
    $('send').disabled = true;
    // An approval left open (a run whose worker was lost) can no longer be answered.
    this.approvals.forEach(function (approval) {
      approval.buttons.forEach(function (button) {
        button.disabled = true;
      });
    });
    var what = this.kind === 'session' ? 'conversation' : 'run';
    if (this.events === 0)
      this.add(el('div', 'notice', 'notice', 'No events: this server does not know the ' + what + ' (or it expired).'));
    if (this.kind === 'session') setStatus('closed', 'closed');
    else if (!this.finished) setStatus('ended', 'ended');
    refreshSoon();
  };

  /**
   * The caller's conversations and runs, newest first, a page at a time (`next`): each a link that
   * opens it, with its status, cost, first prompt line and when it was created.
   */
  var lists = {
    session: { path: '/sessions', items: $('sessions'), more: $('more-sessions'), next: null },
    run: { path: '/runs', items: $('runs'), more: $('more-runs'), next: null },
  };

  function historyItem(record) {
    var item = el('li', 'item', 'history-item');
    item.dataset.id = record.id;
    item.dataset.kind = record.kind;
    item.dataset.state = record.status;
    var link = el('a', 'item-title', 'item-title', record.title || '(no message yet)');
    link.href = '#' + record.kind + '=' + encodeURIComponent(record.id);
    var status = el('span', 'status', 'item-status', record.status);
    status.dataset.state = record.status;
    var facts = el('div', 'item-facts');
    facts.append(
      status,
      el('span', 'item-cost', 'item-cost', costText(record.usage) || 'no usage yet'),
      el('span', 'item-created', 'item-created', whenText(record.created_at)),
      el('span', 'item-provider', 'item-provider', record.provider + (record.kind === 'session' ? ' · ' + record.turns + ' turn(s)' : '')),
    );
    item.append(link, facts);
    return item;
  }

  /** Loads the first page of `kind`'s list again, or (`more`) the page after the last one shown. */
  function loadList(kind, more) {
    var list = lists[kind];
    var path = list.path + '?limit=20' + (more && list.next ? '&before=' + encodeURIComponent(list.next) : '');
    return call('GET', path).then(
      function (page) {
        if (!more) list.items.replaceChildren();
        page.runs.forEach(function (record) {
          list.items.append(historyItem(record));
        });
        list.next = page.next;
        list.more.hidden = !page.next;
        markCurrent();
      },
      function (error) {
        $('history-error').textContent = 'Could not list: ' + error.message;
        $('history-error').hidden = false;
      },
    );
  }

  function refreshLists() {
    $('history-error').hidden = true;
    loadList('session', false);
    loadList('run', false);
  }
  var refreshTimer = null;
  /**
   * After a turn's or a run's end, once things settle (a replayed conversation ends many turns at
   * once): the lists again, and the cost of the conversation on screen from its record.
   */
  function refreshSoon() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(function () {
      refreshLists();
      if (current && current.kind === 'session') showRecordCost(current);
    }, 300);
  }

  /** Marks the item on screen in the lists. */
  function markCurrent() {
    document.querySelectorAll('[data-testid="history-item"]').forEach(function (item) {
      if (current && item.dataset.id === current.id) item.setAttribute('aria-current', 'true');
      else item.removeAttribute('aria-current');
    });
  }

  $('refresh').addEventListener('click', refreshLists);
  $('more-sessions').addEventListener('click', function () {
    loadList('session', true);
  });
  $('more-runs').addEventListener('click', function () {
    loadList('run', true);
  });

  $('start-form').addEventListener('submit', function (submit) {
    submit.preventDefault();
    var options = { provider: $('provider').value, approvals: $('approvals').value };
    if ($('model').value.trim() !== '') options.model = $('model').value.trim();
    var prompt = $('prompt').value;
    var kind = $('kind').value;
    $('start').disabled = true;
    $('form-error').hidden = true;
    var started =
      kind === 'session'
        ? // A conversation: opened, then the prompt is its first message.
          post('/sessions', options).then(function (answer) {
            location.hash = 'session=' + encodeURIComponent(answer.id);
            return post(apiPath('session', answer.id, '/messages'), { text: prompt }).then(function (sent) {
              queued(answer.id, sent.turn);
            });
          })
        : post('/runs', Object.assign({ prompt: prompt }, options)).then(function (answer) {
            // The hash names the run: hashchange shows it, and a reload shows it again.
            location.hash = 'run=' + encodeURIComponent(answer.id);
          });
    started
      .then(
        function () {
          $('prompt').value = '';
          refreshLists();
        },
        function (error) {
          $('form-error').textContent = error.message;
          $('form-error').hidden = false;
        },
      )
      .finally(function () {
        $('start').disabled = false;
      });
  });

  $('message-form').addEventListener('submit', function (submit) {
    submit.preventDefault();
    if (!current || current.kind !== 'session') return;
    var shown = current;
    $('send').disabled = true;
    $('message-error').hidden = true;
    post(apiPath('session', shown.id, '/messages'), { text: $('message').value })
      .then(
        function (sent) {
          if (current !== shown) return;
          $('message').value = '';
          queued(shown.id, sent.turn);
        },
        function (error) {
          $('message-error').textContent = error.message;
          $('message-error').hidden = false;
        },
      )
      .finally(function () {
        if (current === shown && $('status').dataset.state !== 'closed') $('send').disabled = false;
      });
  });

  /** Turn `turn` of conversation `id` is queued: until its message comes back in the stream (a worker took it), it waits. */
  function queued(id, turn) {
    if (current && current.id === id && current.view.turn < turn) setStatus('waiting', 'waiting for a worker');
  }

  $('cancel').addEventListener('click', function () {
    if (!current) return;
    $('cancel').disabled = true;
    post(apiPath(current.kind, current.id, current.kind === 'session' ? '/interrupt' : '/cancel')).catch(function () {
      $('cancel').disabled = false;
    });
  });

  $('end').addEventListener('click', function () {
    if (!current || current.kind !== 'session') return;
    $('end').disabled = true;
    // Its stream ends with it: the view says closed, and the lists are refreshed.
    call('DELETE', apiPath('session', current.id, '')).catch(function () {
      $('end').disabled = false;
    });
  });

  /** What the URL names: `{kind, id}` from #session=<id> or #run=<id>, or null. */
  function targetInHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    if (params.get('session')) return { kind: 'session', id: params.get('session') };
    if (params.get('run')) return { kind: 'run', id: params.get('run') };
    return null;
  }
  window.addEventListener('hashchange', function () {
    show(targetInHash());
  });
  show(targetInHash());
  refreshLists();
})();
