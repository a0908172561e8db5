// Package browsercheck opens an HTML page in headless Chromium, as a reader
// would, and reports what went wrong there: console errors, uncaught script
// errors and images that did not load. It also saves screenshots of the
// whole page, cut into screen-sized PNG pieces, for a person to look at.
//
// Chromium is run twice per page, each time as a fresh process with its own
// throw-away profile: once with --dump-dom on an instrumented copy of the
// page (a script injected at the top of <head> records console.error,
// window errors and resource load failures, and after the load event every
// <img> whose naturalWidth is 0; the copy is written beside the page so
// that relative image paths resolve the same way, and removed after), and
// once with --screenshot on the page itself. Nothing is read from the
// network; the check needs no display.
package browsercheck
