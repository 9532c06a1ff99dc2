// The pages' few behaviours, wired by data attributes: the Content-Security-Policy allows no
// inline script or event handler (onclick=, hx-on), so they live here.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  // A select that applies at once (the language switcher): its form is sent on a change.
  document.addEventListener("change", function (event) {
    const form = event.target.closest && event.target.closest("form[data-submit-on-change]");
    if (form && event.target.tagName === "SELECT") form.submit();
  });

  // A read-only field to copy from (the client link) selects its whole text on a click.
  document.addEventListener("click", function (event) {
    const field = event.target.closest && event.target.closest("[data-select-on-click]");
    if (field) field.select();
  });

  // --- threads: stay at the bottom while messages arrive, else a "new messages" marker ------
  // A [data-thread] element holds the messages; data-thread="page" scrolls with the window
  // (the client's phone), any other value scrolls itself (the producer's transcript).
  const NEAR_BOTTOM_PX = 48;
  const atBottom = new WeakMap();

  function scroller(thread) {
    return thread.dataset.thread === "page" ? document.scrollingElement : thread;
  }

  function isAtBottom(thread) {
    const box = scroller(thread);
    return box.scrollHeight - box.scrollTop - box.clientHeight <= NEAR_BOTTOM_PX;
  }

  function marker(thread) {
    const holder = thread.closest("[data-thread-holder]") || thread.parentElement;
    return holder && holder.querySelector("[data-new-marker]");
  }

  function toBottom(thread) {
    const box = scroller(thread);
    box.scrollTop = box.scrollHeight;
    atBottom.set(thread, true);
    const flag = marker(thread);
    if (flag) flag.hidden = true;
  }

  function threads() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-thread]"));
  }

  function watchThreads() {
    threads().forEach(function (thread) {
      if (!atBottom.has(thread)) toBottom(thread);
    });
  }

  // Scroll events do not bubble: listened to in the capture phase, for the window too.
  document.addEventListener("scroll", function () {
    threads().forEach(function (thread) {
      const bottom = isAtBottom(thread);
      atBottom.set(thread, bottom);
      const flag = marker(thread);
      if (bottom && flag) flag.hidden = true;
    });
  }, true);

  document.addEventListener("click", function (event) {
    const flag = event.target.closest && event.target.closest("[data-new-marker]");
    if (!flag) return;
    const holder = flag.closest("[data-thread-holder]") || flag.parentElement;
    const thread = holder.querySelector("[data-thread]");
    if (thread) toBottom(thread);
  });

  // Messages are appended (never re-rendered): a reader at the bottom follows them; a reader
  // scrolled up keeps their place and gets the marker. Focus is left where it is.
  const observer = new MutationObserver(function (mutations) {
    const grown = new Set();
    mutations.forEach(function (mutation) {
      const thread = mutation.target.closest && mutation.target.closest("[data-thread]");
      if (!thread || mutation.target !== thread) return;
      const removed = new Set();
      mutation.removedNodes.forEach(function (node) { if (node.id) removed.add(node.id); });
      mutation.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) return;
        // Two responses in flight at once (a poll and a sent message) can both carry the same
        // new message: the copy that arrives second is dropped, the thread shows it once.
        if (node.id && thread.querySelectorAll("#" + CSS.escape(node.id)).length > 1) {
          node.remove();
          return;
        }
        // A message replaced in place (its state changed) is not a new one.
        if (!(node.id && removed.has(node.id))) grown.add(thread);
      });
    });
    grown.forEach(function (thread) {
      if (atBottom.get(thread) !== false) {
        toBottom(thread);
      } else {
        const flag = marker(thread);
        if (flag) flag.hidden = false;
      }
    });
    watchThreads();
  });

  // --- focus: never stolen by a swap, back where it makes sense after an action --------------
  const FOCUSABLE = "a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), " +
    "select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";
  let lostFocus = null;

  document.addEventListener("htmx:beforeSwap", remember);
  document.addEventListener("htmx:oobBeforeSwap", remember);

  function remember(event) {
    const target = event.detail.target;
    const active = document.activeElement;
    if (!target || !active || active === document.body || !target.contains(active)) return;
    const section = target.id ? target : target.closest("[id]");
    if (!section) return;
    const focusables = Array.prototype.slice.call(section.querySelectorAll(FOCUSABLE));
    lostFocus = { id: section.id, index: focusables.indexOf(active), elementId: active.id };
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    const source = event.detail.requestConfig && event.detail.requestConfig.elt;
    const form = source && source.closest && source.closest("[data-focus-after]");
    const focusLost = !document.activeElement || document.activeElement === document.body;
    if (form && event.detail.successful !== false && focusLost) {
      // An action names where the work goes on (after "Take over": the message box).
      const next = document.querySelector(form.dataset.focusAfter);
      if (next) { next.focus({ preventScroll: true }); lostFocus = null; return; }
    }
    if (!lostFocus || !focusLost) { lostFocus = null; return; }
    const remembered = lostFocus;
    lostFocus = null;
    const byId = remembered.elementId && document.getElementById(remembered.elementId);
    if (byId) { byId.focus({ preventScroll: true }); return; }
    const section = document.getElementById(remembered.id);
    if (!section) return;
    const focusables = section.querySelectorAll(FOCUSABLE);
    const index = Math.min(Math.max(remembered.index, 0), focusables.length - 1);
    if (index >= 0) focusables[index].focus({ preventScroll: true });
  });

  // Ctrl+Enter (Cmd+Enter on a Mac) sends the message being typed.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    const form = event.target.closest && event.target.closest("form[data-send-on-ctrl-enter]");
    if (!form) return;
    event.preventDefault();
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });

  // --- the inbox: tab title, the navigation's count, opt-in notifications ------------------
  const NOTIFY_KEY = "briefings.notify";
  let seen = null;  // project id -> "unread|needs" of the user's own briefings, last refresh

  function inboxUpdate() {
    const inbox = document.querySelector("[data-inbox]");
    if (!inbox) return;
    const unread = parseInt(inbox.dataset.unreadTotal || "0", 10) || 0;
    const title = document.title.replace(/^\(\d+\) /, "");
    document.title = unread > 0 ? "(" + unread + ") " + title : title;
    document.querySelectorAll("[data-nav-unread]").forEach(function (badge) {
      badge.textContent = String(unread);
      badge.hidden = unread === 0;
    });
    const now = new Map();
    inbox.querySelectorAll("tr[data-own]").forEach(function (row) {
      now.set(row.dataset.project, { unread: parseInt(row.dataset.unread, 10) || 0,
        needs: row.dataset.needs || "", title: row.dataset.title || "" });
    });
    if (seen !== null) {
      now.forEach(function (state, id) {
        const before = seen.get(id) || { unread: 0, needs: "" };
        if (state.unread > before.unread) notify(state.title, text(inbox, "newMessage"));
        else if (state.needs && state.needs !== before.needs) notify(state.title, text(inbox, "needsYou"));
      });
    }
    seen = now;
  }

  function notifyOn() {
    return window.localStorage && localStorage.getItem(NOTIFY_KEY) === "on";
  }

  function notify(title, body) {
    if (!notifyOn()) return;
    document.body.dataset.notified = String((parseInt(document.body.dataset.notified || "0", 10)) + 1);
    if ("Notification" in window && Notification.permission === "granted") {
      try { new Notification(title, { body: body, tag: "briefing-" + title }); } catch (e) { /* ignored */ }
    }
    beep();
  }

  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.05;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.15);
    } catch (e) { /* no sound where the browser allows none */ }
  }

  // The page's texts in the reader's language, from data-text-* attributes the server wrote.
  function text(element, name) {
    return element.dataset["text" + name.charAt(0).toUpperCase() + name.slice(1)] || "";
  }

  function toggleLabel(button) {
    button.textContent = notifyOn() ? text(button, "on") : text(button, "off");
    button.setAttribute("aria-pressed", notifyOn() ? "true" : "false");
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-notify-toggle]");
    if (!button) return;
    if (notifyOn()) {
      localStorage.setItem(NOTIFY_KEY, "off");
      toggleLabel(button);
      return;
    }
    const enable = function () { localStorage.setItem(NOTIFY_KEY, "on"); toggleLabel(button); beep(); };
    if ("Notification" in window && Notification.permission !== "granted") {
      Notification.requestPermission().then(function (permission) {
        // Without the permission the sound still tells the producer.
        enable();
        if (permission !== "granted") button.textContent += " " + text(button, "soundOnly");
      });
    } else {
      enable();
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.target && event.detail.target.id === "rows") inboxUpdate();
  });

  function start() {
    document.querySelectorAll("[data-notify-toggle]").forEach(function (button) {
      button.hidden = false;
      toggleLabel(button);
    });
    watchThreads();
    observer.observe(document.body, { childList: true, subtree: true });
    inboxUpdate();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
