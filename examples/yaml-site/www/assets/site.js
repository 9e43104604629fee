fetch("settings.json")
  .then((r) => r.json())
  .then((s) => (document.title = s.title));
