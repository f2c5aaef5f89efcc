package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/gcnotice"
	"github.com/softphone/softphone/server/api"
	"github.com/softphone/softphone/server/metrics"
	"github.com/softphone/softphone/server/web"
	"github.com/softphone/softphone/server/webhook"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

func run(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(o.args) > 0 {
		return command(ctx, o, stdin, stdout)
	}
	return runPhone(ctx, o, stdout, stderr)
}

// runPhone builds every part, runs them, and on ctx done stops them in
// reverse order: listeners, the phone (calls are ended properly), the senders
// (queues flushed), then the database (STYLE.md rule 1, gotosocial's order).
func runPhone(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(o.home, 0o700); err != nil {
		return fmt.Errorf("home folder %s: %w", o.home, err)
	}
	lock, err := lockHome(o.home) // before anything in the home is read or written (homelock.go)
	if err != nil {
		return err
	}
	defer lock.release()
	store.RemoveSecretsLeftovers(o.home) // old copies of secrets a kill left (store/leftovers.go)
	settings, err := store.NewSettingsStore(filepath.Join(o.home, "settings.json"))
	if err != nil {
		return err
	}
	st := settings.Get()
	level := o.logLevel
	if level == "" {
		level = st.Diagnostics.LogLevel
	}
	log := newLogger(stderr, level)
	if lock.unguarded != nil {
		log.Warn("the home folder cannot be locked: make sure no other softphone runs with it", "home", o.home, "err", lock.unguarded)
	}

	secrets := store.OpenSecrets(o.home)
	if secrets.Fallback() {
		log.Warn("no keyring available: secrets are kept in secrets.json (mode 0600) in the home folder", "home", o.home)
	}
	db, err := store.OpenDB(filepath.Join(o.home, "softphone.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetNumberRegion(st.SIP.DefaultRegion) // contacts match numbers in any format (issue 16)

	bus := sipua.NewBusAfterRuns() // /events ids rise across restarts (issue 14)
	counters := metrics.New()
	transcripts := sipua.NewTranscripts(sipua.TranscriptsConfig{DB: db, Secrets: secrets, Home: o.home, Settings: settings.Get, Logger: log})
	onRecording := func(r audio.RecordingInfo) {
		if err := transcripts.Enqueue(r.ID); err != nil {
			log.Warn("no transcript for recording", "recording", r.ID, "err", err)
		}
	}
	// The channels' copies of transcripts a kill cut short (audio/transcribe_temp.go),
	// before any transcript runs.
	if n := audio.RemoveTranscriptLeftovers(filepath.Join(o.home, "recordings")); n > 0 {
		log.Info("copies of transcripts cut short by a crash removed", "folders", n)
	}
	// Recordings a crash cut short get their length (store/recordings_repair.go)
	// before any call records, and a transcript like any finished one.
	repairRecordings(ctx, db, o.home, transcripts, log)
	ecfg := audioConfig(o.home, st, db, onRecording)
	ecfg.Logger = log // e.g. a recording that stops because the disk is full (issue 14)
	engine, err := audio.NewEngine(ecfg)
	if err != nil {
		return err
	}
	defer engine.Close() // after the phone has ended its calls, before the database closes
	phone, err := sipua.New(sipua.Config{Settings: st, Secrets: secrets, DB: db, Bus: bus, Media: engine, Logger: log, Home: o.home})
	if err != nil {
		return err
	}
	watchCtx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	watchContacts(watchCtx, phone, db, log)
	counters.AddCounterFunc(metrics.SIPRefusedName, metrics.SIPRefusedHelp, phone.RefusedRequests)
	counters.AddCounterFunc(metrics.RTPStrayName, metrics.RTPStrayHelp, engine.StrayPackets)
	sender := webhook.New(webhook.Config{Settings: st, Secrets: secrets, DB: db, Metrics: counters,
		Version: version, InstallMethod: installMethod, Logger: log})
	var webServer *web.Server
	openPage := func() bool { // POST /calls with no tab holding the audio
		return !o.noBrowser && webServer != nil && openBrowser(webServer.LoginURL(), log)
	}
	phone.OutboxInterrupted(sender.Outboxed) // a crash's open calls end in the outbox too (issue 14)
	apiServer := api.New(api.Config{Settings: settings, Phone: phone, DB: db, Secrets: secrets, Metrics: counters,
		WebhookTest: webhookTest(sender), Bus: bus, Home: o.home, Logger: log,
		Audio: engine.Bridge(), OpenPage: openPage, Transcripts: transcripts})
	webServer, err = web.New(web.Config{Settings: settings, Phone: phone, DB: db, Secrets: secrets,
		Webhooks: sender, WebhookTest: webhookTest(sender), API: apiServer, Origins: apiServer.Approvals(), Bus: bus, Bridge: engine.Bridge(),
		Home: o.home, Logger: log, Ports: engine})
	if err != nil {
		return err
	}
	refreshDesktop(o, log)
	syncStartAtLogin(o, st.Startup.StartAtLogin, log)
	recogniser := st.Transcription.Recogniser
	settings.Watch(func(s store.Settings) {
		// A recogniser set (or another chosen) runs the transcripts left
		// pending meanwhile, not only at the next start.
		if s.Transcription.Recogniser != recogniser {
			recogniser = s.Transcription.Recogniser
			transcripts.Wake()
		}
		db.SetNumberRegion(s.SIP.DefaultRegion)
		syncStartAtLogin(o, s.Startup.StartAtLogin, log)
		phone.Apply(s)
		sender.Apply(s)
		if err := engine.Apply(audioConfig(o.home, s, db, onRecording)); err != nil {
			log.Error("audio settings not applied", "err", err)
		}
	})

	// Counters and the webhook outbox subscribe before the phone starts, so
	// they see every call from the first.
	untapCounters := counters.Tap(bus)
	sender.Consume(sender.Subscribe(bus))
	memSub := bus.SubscribeOnly(64, true, callEvents)

	url, err := webServer.Listen()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Phone page: %s\n", url)
	if !o.noBrowser && st.Startup.OpenPage {
		openBrowser(url, log)
	}

	listenCtx, stopListeners := context.WithCancel(context.Background())
	phoneCtx, stopPhone := context.WithCancel(context.Background())
	sendCtx, stopSenders := context.WithCancel(context.Background())
	defer stopListeners()
	defer stopPhone()
	defer stopSenders()

	listeners, lctx := errgroup.WithContext(listenCtx)
	listeners.Go(func() error { return webServer.Serve(lctx) })
	listeners.Go(func() error { return apiServer.Serve(lctx) })
	phoneGroup, pctx := errgroup.WithContext(phoneCtx)
	phoneGroup.Go(func() error { return phone.Serve(pctx) })
	senders, sctx := errgroup.WithContext(sendCtx)
	senders.Go(func() error { return sender.Serve(sctx) })
	senders.Go(func() error { return transcripts.Serve(sctx) })
	gcs := gcnotice.Start()
	defer gcs.Stop()
	senders.Go(func() error {
		freeMemAfterCalls(sctx, memSub.C(), gcs.C(), freeMemDefault, releaseWhenIdle(log, func() { phone.CompactTrace(); db.ReleaseMemory(sctx) }))
		return nil
	})

	// The first part to fail, or the signal, stops everything in order.
	failed := make(chan error, 3)
	go func() { failed <- listeners.Wait() }()
	go func() { failed <- phoneGroup.Wait() }()
	go func() { failed <- senders.Wait() }()
	select {
	case <-ctx.Done():
	case <-failed: // its error is collected again below, in order
	}
	log.Info("shutting down")
	stopListeners()
	errs := []error{listeners.Wait()}
	stopPhone()
	errs = append(errs, phoneGroup.Wait())
	stopSenders()
	errs = append(errs, senders.Wait())
	untapCounters()
	memSub.Close()
	return errors.Join(ignoreCanceled(errs)...)
}

func ignoreCanceled(errs []error) []error {
	var out []error
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			out = append(out, e)
		}
	}
	return out
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
