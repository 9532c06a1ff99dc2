// The pages' few behaviours, wired by data attributes: the Content-Security-Policy allows no
// inline script or event handler (onclick=, hx-on), so they live here.
(function () {
  "use strict";

  // A read-only field to copy from (the client link) selects its whole text on a click.
  document.addEventListener("click", function (event) {
    const field = event.target.closest && event.target.closest("[data-select-on-click]");
    if (field) field.select();
  });
})();
