// A canned reply into the producer's message box without a request: the chosen reply's text
// goes where the cursor was (over a selection), or at the end of a box not yet typed in.
// Without JavaScript the "Insert" button posts the form and the page comes back with it.
(function () {
  "use strict";

  const typedIn = new WeakSet();

  document.addEventListener("focusin", function (event) {
    if (event.target.tagName === "TEXTAREA") typedIn.add(event.target);
  });

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-canned-insert]");
    if (!button) return;
    const select = button.form && button.form.querySelector("[data-canned-select]");
    const option = select && select.selectedOptions[0];
    const box = document.querySelector(button.dataset.cannedInsert);
    if (!option || !box) return;
    event.preventDefault();
    const text = option.dataset.text || "";
    if (typedIn.has(box)) {
      // A space between the reply and a word typed right before the cursor.
      const before = box.value.slice(0, box.selectionStart);
      const gap = before && !/\s$/.test(before) ? " " : "";
      box.setRangeText(gap + text, box.selectionStart, box.selectionEnd, "end");
    } else {
      const before = box.value.replace(/\s+$/, "");
      box.value = before ? before + "\n\n" + text : text;
      box.setSelectionRange(box.value.length, box.value.length);
    }
    box.focus();
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });
})();
