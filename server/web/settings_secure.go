package web

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// readAccountSecurity reads the account form's media encryption and STUN
// fields (issue 18); errors go next to the fields, in the page's language.
func readAccountSecurity(c fiber.Ctx, a *store.Account, errs views.Errors, l views.L) {
	a.MediaEncryption = c.FormValue("media_encryption")
	if a.MediaEncryption == "" {
		a.MediaEncryption = store.MediaEncryptionNone
	}
	if !slices.Contains(store.MediaEncryptions, a.MediaEncryption) {
		errs["media_encryption"] = l.F("err.oneof", strings.Join(store.MediaEncryptions, ", "))
	}
	a.MediaEncryptionRequired = checked(c, "media_encryption_required")
	if a.MediaEncryptionRequired && a.MediaEncryption == store.MediaEncryptionNone {
		errs["media_encryption_required"] = l.T("err.encryption.required")
	}
	a.StunServer = strings.TrimSpace(c.FormValue("stun_server"))
	if a.StunServer != "" {
		host, port, err := net.SplitHostPort(a.StunServer)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			errs["stun_server"] = l.T("err.hostport")
		}
	}
}
