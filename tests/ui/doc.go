// Package ui holds the dashboard's end-to-end test: it runs a job with the
// real floe binary, `floe run --ui`, and drives the dashboard that the
// binary serves in a real headless Chromium through the DevTools protocol
// (chromedp), checking what the pages show against the REST API.
//
// The test needs Chromium ("chromium" on PATH, or FLOE_CHROMIUM naming the
// binary). Without it the test skips, unless the CI environment variable is
// set, when it fails. FLOE_UI_SCREENSHOTS names a directory to keep the
// screenshots of each page in; docs/images holds the ones README.md shows.
package ui
