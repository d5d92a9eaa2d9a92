package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"
)

// busyCommand runs a command (run.sh's micro-benchmarks) and notes in the
// results of `load bench` how many cores the rest of the machine kept
// busy while it ran (busy.go): the command's own CPU time, with its
// children's (go test's compiler and test binary), and the driver's are
// the bench's. Its output passes through; its exit status is the
// command's.
func busyCommand(args []string) error {
	fs := flag.NewFlagSet("busy", flag.ExitOnError)
	file := fs.String("results", "", "results of load bench (JSON) to note the load in")
	_ = fs.Parse(args)
	argv := fs.Args()
	if *file == "" || len(argv) == 0 {
		return errors.New("busy needs -results FILE -- COMMAND [ARGS]")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	before := readCPU([]int{os.Getpid()})
	start := time.Now()
	runErr := cmd.Run()
	secs := time.Since(start).Seconds()
	after := readCPU([]int{os.Getpid()})
	if cmd.ProcessState != nil {
		// Its rusage, which counts the children it waited for.
		after.own += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	if err := noteMicroLoad(*file, othersSince(before, after)/max(secs, 1e-3)); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("%v: %w", argv, runErr)
	}
	log.Printf("other work during %s: %.2f cores", argv[0], othersSince(before, after)/max(secs, 1e-3))
	return nil
}

// noteMicroLoad writes load as the micro-benchmarks' into the results
// file; results without the rounds' other work stay without it.
func noteMicroLoad(file string, load float64) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if res.Other == nil {
		return nil
	}
	res.Other.Micro = load
	out, err := json.MarshalIndent(&res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(out, '\n'), 0o644)
}
