// The user's unread client messages on a briefing's page, as the inbox shows them: the
// counter (#inbox-unread) refreshes every 3 s and this puts its count into the tab title and
// the navigation's badge. The Content-Security-Policy allows no inline script: it lives here.
(function () {
  "use strict";

  function apply() {
    const counter = document.querySelector("[data-inbox-unread]");
    if (!counter) return;
    const unread = parseInt(counter.dataset.inboxUnread || "0", 10) || 0;
    const title = document.title.replace(/^\(\d+\) /, "");
    document.title = unread > 0 ? "(" + unread + ") " + title : title;
    document.querySelectorAll("[data-nav-unread]").forEach(function (badge) {
      badge.textContent = String(unread);
      badge.hidden = unread === 0;
    });
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.target && event.detail.target.id === "inbox-unread") apply();
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", apply);
  else apply();
})();
