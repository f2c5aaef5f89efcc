package views

import (
	"sync"

	assets "github.com/softphone/softphone/static"
)

// appCSS is the phone pages' stylesheet, inlined into the local API's
// pages (/ui), which are served on the API's port without /static, so that
// they look like the rest (issue 16 item 7).
var appCSS = sync.OnceValue(func() string {
	b, err := assets.FS.ReadFile("css/app.css")
	if err != nil {
		return ""
	}
	return string(b)
})
