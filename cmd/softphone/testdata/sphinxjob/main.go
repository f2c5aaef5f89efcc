//go:build windows

// Command sphinxjob is the phone of TestWindowsBuildUnderWine's recogniser
// check, built for Windows and run under Wine: it transcribes a short WAV
// with audio.Pocketsphinx whose program is this one again, run as the
// recogniser ("single FILE": it writes its process id to $SPHINXJOB_PID
// and waits). "check PID" waits up to 10 s for that process to end and
// exits 0 when it has, 1 when it runs on.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/softphone/softphone/audio"
	"golang.org/x/sys/windows"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "check" {
		pid, _ := strconv.Atoi(os.Args[2])
		h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
		if err != nil {
			fmt.Println("gone:", err) // no such process any more
			os.Exit(0)
		}
		if ev, _ := windows.WaitForSingleObject(h, 10000); ev == windows.WAIT_OBJECT_0 {
			fmt.Println("gone")
			os.Exit(0)
		}
		fmt.Println("runs on")
		os.Exit(1)
	}
	for _, a := range os.Args[1:] {
		if a == "single" { // the recogniser
			pidFile := os.Getenv("SPHINXJOB_PID")
			_ = os.WriteFile(pidFile+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o600)
			_ = os.Rename(pidFile+".tmp", pidFile)
			time.Sleep(2 * time.Minute)
			os.Exit(0)
		}
	}
	// The phone: a second of a 1 kHz square wave, mono, 8 kHz.
	dir, err := os.MkdirTemp("", "sphinxjob")
	if err != nil {
		panic(err)
	}
	pcm := make([]byte, 16000)
	for i := 0; i < 8000; i++ {
		v := int16(8000)
		if i/4%2 == 1 {
			v = -8000
		}
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	hdr := make([]byte, 44)
	copy(hdr, "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:], uint32(36+len(pcm)))
	copy(hdr[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(hdr[16:], 16)
	binary.LittleEndian.PutUint16(hdr[20:], 1)     // PCM
	binary.LittleEndian.PutUint16(hdr[22:], 1)     // mono
	binary.LittleEndian.PutUint32(hdr[24:], 8000)  // rate
	binary.LittleEndian.PutUint32(hdr[28:], 16000) // bytes per second
	binary.LittleEndian.PutUint16(hdr[32:], 2)
	binary.LittleEndian.PutUint16(hdr[34:], 16)
	copy(hdr[36:], "data")
	binary.LittleEndian.PutUint32(hdr[40:], uint32(len(pcm)))
	wav := filepath.Join(dir, "remote.wav")
	if err := os.WriteFile(wav, append(hdr, pcm...), 0o600); err != nil {
		panic(err)
	}
	_, err = audio.Pocketsphinx{Bin: os.Args[0]}.Transcribe(context.Background(), wav)
	fmt.Println("the recogniser ended:", err)
	os.Exit(3)
}
