// memex viewer: a little progressive enhancement. Every page works without this file;
// it adds the current page's mark in the nav, scrolls a timeline to its hit, and applies
// live updates (server-sent events) where a page asks for them. No inline script: the
// Content-Security-Policy allows scripts from this site only.
"use strict";

function markCurrentNav() {
  const path = window.location.pathname;
  for (const link of document.querySelectorAll("#site-nav a")) {
    const href = link.getAttribute("href");
    if (href === path || (href !== "/" && path.startsWith(href))) {
      link.setAttribute("aria-current", "page");
    }
  }
}

function scrollToCurrent() {
  const current = document.querySelector("[data-current='true']");
  if (current) {
    current.scrollIntoView({ block: "center" });
  }
}

// Live updates: an element with data-live-url is filled from that event stream.
// Each event's data is JSON {id, title, role, source, time, text, href}; text goes in as
// text (textContent), never as markup.
function startLive() {
  const target = document.querySelector("[data-live-url]");
  if (!target || !window.EventSource) {
    return;
  }
  const list = document.getElementById(target.dataset.liveList);
  const status = document.getElementById("live-status");
  const pause = document.getElementById("live-pause");
  let paused = false;
  const held = [];
  function say(text) {
    if (status) {
      status.textContent = text;
    }
  }
  function apply(item) {
    if (!list) {
      return;
    }
    if (document.getElementById("turn-" + item.id)) {
      return; // already shown
    }
    const li = document.createElement("li");
    li.className = "turn new";
    li.id = "turn-" + item.id;
    li.dataset.testid = "live-item";
    li.dataset.id = item.id;
    const meta = document.createElement("p");
    meta.className = "meta";
    meta.textContent = [item.role, item.source, item.time].filter(Boolean).join(" · ");
    const content = document.createElement("p");
    content.className = "content";
    content.textContent = item.text;
    if (item.href) {
      const link = document.createElement("a");
      link.href = item.href;
      link.textContent = item.title || item.id;
      const heading = document.createElement("h2");
      heading.appendChild(link);
      li.appendChild(heading);
    }
    li.appendChild(meta);
    li.appendChild(content);
    if (target.dataset.livePrepend) {
      list.insertBefore(li, list.firstChild);
    } else {
      list.appendChild(li);
    }
  }
  if (pause) {
    pause.addEventListener("click", function () {
      paused = !paused;
      pause.setAttribute("aria-pressed", paused ? "true" : "false");
      pause.textContent = paused ? "Resume live updates" : "Pause live updates";
      if (!paused) {
        while (held.length) {
          apply(held.shift());
        }
        say("Live: new fragments appear as they are captured.");
      } else {
        say("Paused: new fragments are held until you resume.");
      }
    });
  }
  const source = new EventSource(target.dataset.liveUrl);
  source.addEventListener("fragment", function (event) {
    let item;
    try {
      item = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    if (paused) {
      held.push(item);
      say("Paused: " + held.length + " new fragment(s) held until you resume.");
    } else {
      apply(item);
      say("Live: last update at " + new Date().toLocaleTimeString() + ".");
    }
  });
  source.addEventListener("error", function () {
    say("Live updates interrupted; retrying.");
  });
}

document.addEventListener("DOMContentLoaded", function () {
  markCurrentNav();
  scrollToCurrent();
  startLive();
});
