document.getElementById('csp-btn').addEventListener('click', function () {
  var o = document.getElementById('csp-clicks');
  o.textContent = String(Number(o.textContent) + 1);
});
