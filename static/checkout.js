/* Hosted checkout: progressive enhancement only; every page works without it. */
(function () {
  "use strict";
  // Card: post the signed form to the card partner's page at once.
  var auto = document.querySelector("form[data-autosubmit]");
  if (auto) {
    auto.submit();
    return;
  }
  // One click, one attempt: disable the button while the form is sent.
  document.querySelectorAll("form[data-method]").forEach(function (form) {
    form.addEventListener("submit", function () {
      var button = form.querySelector("button[type=submit]");
      if (button) button.disabled = true;
    });
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-method] button[disabled]").forEach(function (b) {
      b.disabled = false;
    });
  });
  // Waiting page: ask for the attempt's status and follow it once it is final.
  var main = document.querySelector("[data-poll-url]");
  if (!main) return;
  var url = main.getAttribute("data-poll-url");
  var every = (parseFloat(main.getAttribute("data-poll-seconds")) || 3) * 1000;
  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : {}; })
      .then(function (data) {
        if (data.next) window.location.assign(data.next);
        else setTimeout(poll, every);
      })
      .catch(function () { setTimeout(poll, every * 2); });
  }
  setTimeout(poll, Math.min(every, 1500));
})();
