// Command receiver is a webhook receiver run as a separate process by the
// webhook tests. It prints "listening ADDR", then one JSON line per request
// (method, delivery id, and the payload's id, event and callstate_ts) and
// answers 200, or with -stall never answers at all.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	stall := flag.Bool("stall", false, "never answer")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p map[string]string
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		_ = enc.Encode(map[string]string{"method": r.Method, "delivery": r.Header.Get("Webhook-Id"),
			"id": p["id"], "event": p["event"], "callstate_ts": p["callstate_ts"]})
		mu.Unlock()
		if *stall {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	fmt.Fprintln(os.Stderr, err)
}
