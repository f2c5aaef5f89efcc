package audio

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sphinxProcAttr: Windows has no death signal; sphinxStarted puts the
// recogniser in the phone's job instead.
func sphinxProcAttr() *syscall.SysProcAttr { return nil }

// sphinxJob is the job object every recogniser the phone starts goes
// into, with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when the phone's process
// ends however it ends (Task Manager's End task, a crash), Windows closes
// its handles, the job's last one with them, and ends what is in the job.
// A killed phone left pocketsphinx running on for the rest of the channel
// (minutes of both cores for an hour's call), as on Linux before its death
// signal (transcribe_sphinx_linux.go). Made once, never closed: closing it
// would end the recognisers running.
var sphinxJob = sync.OnceValues(func() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("job object limits: %w", err)
	}
	return job, nil
})

// sphinxStarted puts the started recogniser into sphinxJob. pocketsphinx
// starts no programs of its own, so the moment between its start and this
// leaves nothing outside the job. A recogniser that cannot be put there
// runs all the same (as before), and the error says why.
func sphinxStarted(p *os.Process) error {
	job, err := sphinxJob()
	if err != nil {
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		return fmt.Errorf("open the recogniser's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("put the recogniser in the phone's job: %w", err)
	}
	return nil
}
