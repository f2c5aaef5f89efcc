// Package static holds the phone pages' styles, scripts and vendored
// libraries, embedded into the binary. The sources under src/ are bundled by
// `npm run build` (esbuild) into dist/; the built files are committed so a
// plain `go build` needs no npm.
package static

import "embed"

// FS is served under /static/ by server/web.
//
//go:embed css dist vendor
var FS embed.FS
