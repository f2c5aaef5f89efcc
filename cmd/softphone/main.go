// Command softphone is a desktop SIP phone whose speaker and microphone are a
// browser tab on the same computer, with a local REST API, webhooks and
// Prometheus counters for integrators. main only wires the parts together.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go exitOnSecondSignal(ctx)
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "softphone:", err)
		os.Exit(1)
	}
}

// exitOnSecondSignal waits for the first signal (ctx done, clean shutdown
// begins) and then exits at once on a second one.
func exitOnSecondSignal(ctx context.Context) {
	<-ctx.Done()
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	<-c
	fmt.Fprintln(os.Stderr, "softphone: second signal, exiting at once")
	os.Exit(130)
}
