/* A file larger than the server takes (its input's data-max-bytes) is refused here, in the
   words of the input's data-too-large, before the form is sent: the payout batch's file, the
   documents of an application for live mode. The server refuses it too. */
(function () {
  var inputs = document.querySelectorAll("input[type=file][data-max-bytes]");
  Array.prototype.forEach.call(inputs, function (input) {
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
  });
})();
