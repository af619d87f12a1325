/* The payment link's "Copy" button: shown only where this script runs, it copies the link's
   address and says so (the words are the button's data-copied, in the page's language). */
(function () {
  var button = document.getElementById("copy-url"), field = document.getElementById("link-url");
  var said = document.getElementById("copy-said");
  if (!button || !field) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { said.textContent = button.dataset.copied; };
    if (navigator.clipboard) { navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); }); }
    else { document.execCommand("copy"); done(); }
  });
})();
