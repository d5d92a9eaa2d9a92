// Command load is the load driver of bench/run.sh: it attacks the front
// Caddy of each scenario with that scenario's requests, using vegeta as a
// library, in interleaved rounds; checks every answer; reads each front's
// peak RSS and the login counts; and writes the results as JSON. `load
// report` turns them into the markdown table and the ratios against the
// targets (the front's CPU per request against its floor).
//
//	load wait   -url URL
//	load bench  -front A=PORT,ADMINPORT,PID [-front ...] -keys DIR -out FILE [...]
//	load report -in FILE [-micro FILE] [-out FILE]
//	load busy   -results FILE -- COMMAND [ARGS]
//	load pprof  -dir RESULTS [-base A] [-vs B,C] [-n 40]
package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	log.SetFlags(log.Ltime)
	log.SetPrefix("load: ")
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: load wait|bench|report|busy|pprof [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "wait":
		err = waitCommand(os.Args[2:])
	case "bench":
		err = benchCommand(os.Args[2:])
	case "report":
		err = reportCommand(os.Args[2:])
	case "busy":
		err = busyCommand(os.Args[2:])
	case "pprof":
		err = pprofCommand(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want wait, bench, report, busy or pprof", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
}
