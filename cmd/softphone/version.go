package main

// Set with -ldflags "-X main.version=1.2.3 -X main.installMethod=deb".
// The webhook User-Agent is product/version-install_method (webhooks.md).
var (
	version       = "0.1.0"
	installMethod = "source"
)

const product = "softphone"
