// Command load is the load driver of bench/run.sh: it attacks one front
// Caddy with one scenario's requests using vegeta as a library, checks
// every answer, reads the front's peak RSS and the login counts, and
// writes the result as JSON; `load report` turns the results of a run into
// the markdown table and the ratios against the targets of issue 6.
//
//	load wait   -url URL
//	load run    -scenario A|B|C|Ddirect|Dconv -front-pid PID -keys DIR -out FILE [...]
//	load report -dir DIR [-out FILE]
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
		fmt.Fprintln(os.Stderr, "usage: load wait|run|report [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "wait":
		err = waitCommand(os.Args[2:])
	case "run":
		err = runCommand(os.Args[2:])
	case "report":
		err = reportCommand(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want wait, run or report", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
}
