// Trial pages are loaded when asked for: from the server (reclaim view), or unpacked from the
// gzip'd copy this file carries (a report saved as one file). Nothing is fetched from elsewhere.
(function () {
  const view = document.getElementById("trial-view");
  async function unpack(b64) {
    const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await new Response(stream).text();
  }
  async function open(id) {
    let html;
    const packed = document.querySelector(`script[data-trial="${CSS.escape(id)}"]`);
    if (packed) {
      html = await unpack(packed.textContent.trim());
    } else if (document.body.dataset.trialBase) {
      const r = await fetch(document.body.dataset.trialBase + encodeURIComponent(id));
      html = r.ok ? await r.text() : `<p>trial ${id}: ${r.status}</p>`;
    } else {
      html = `<p>trial ${id} is not in this report</p>`;
    }
    view.innerHTML = html;
    view.dataset.trial = id;
    const cited = view.querySelector("tr.cited");
    (cited || view).scrollIntoView({block: "start"});
  }
  document.addEventListener("click", ev => {
    const a = ev.target.closest("a[data-trial]");
    if (!a) return;
    ev.preventDefault();
    history.replaceState(null, "", "#trial=" + encodeURIComponent(a.dataset.trial));
    open(a.dataset.trial);
  });
  const m = location.hash.match(/^#trial=(.+)$/);
  if (m) open(decodeURIComponent(m[1]));
})();
