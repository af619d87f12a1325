/* A payout batch's file: one larger than the server takes (the field's data-max-bytes) is
   refused here, in the words of its data-too-large, before it is sent. */
(function () {
  var input = document.querySelector("input[type=file][data-max-bytes]");
  if (!input) { return; }
  var said = document.createElement("span");
  said.className = "errorlist";
  said.setAttribute("role", "alert");
  said.hidden = true;
  input.parentNode.appendChild(said);
  input.addEventListener("change", function () {
    var file = input.files[0];
    var message = file && file.size > Number(input.dataset.maxBytes) ? input.dataset.tooLarge : "";
    input.setCustomValidity(message);
    said.textContent = message;
    said.hidden = !message;
  });
})();
