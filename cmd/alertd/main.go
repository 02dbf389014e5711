// Command alertd is the engine: `alertd serve` runs it, `alertd admin` issues
// and manages keys through the admin API, `alertd simulate` feeds it a
// synthetic upstream (CONTRACT.md section 1), `alertd version` says what was
// built, `alertd healthcheck` asks a running server's /health.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: alertd <command> [flags]

commands:
  serve      run the engine (REST, WebSockets, webhooks, actors, store)
  admin      issue keys, change plans, revoke keys through the admin API
  simulate   post a synthetic upstream to the ingest API
  connector-demo x|launchpad
             run a real upstream connector against its local fake (no credentials)
  version    print the version, commit and Go version
  healthcheck  exit 0 when the local server's /health answers 200 (container health checks)

Run 'alertd <command> -h' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = runServe(os.Args[2:], os.Stdout)
	case "admin":
		err = runAdmin(os.Args[2:], os.Stdout)
	case "simulate":
		err = runSimulate(os.Args[2:])
	case "connector-demo":
		err = runConnectorDemo(os.Args[2:])
	case "version", "--version":
		err = runVersion(os.Args[2:], os.Stdout)
	case "healthcheck":
		err = runHealthcheck(os.Args[2:], os.Stdout)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "alertd: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "alertd %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
