package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/configs"
)

// configCommand implements `swebench-run config show|list`.
func configCommand(args []string, stdout, stderr io.Writer) error {
	usage := func() {
		fmt.Fprint(stderr, `Usage:
  swebench-run config show [-c FILE|NAME|key.path=value]... [--model NAME] [--json]
      Print the fully resolved config (shipped defaults, -c files and overrides merged, defaults
      filled in, secrets removed): what a run with the same -c and --model would use and save.
  swebench-run config list
      List the configs shipped in the binary (usable by name with -c).
`)
	}
	if len(args) == 0 {
		usage()
		return &exitStatusError{code: exitUsage}
	}
	switch args[0] {
	case "list":
		if len(args) > 1 {
			return fmt.Errorf("%w: config list takes no arguments", errUsage)
		}
		for _, name := range configs.Shipped() {
			marker := ""
			if name == configs.DefaultName {
				marker = "\t(default)"
			}
			fmt.Fprintf(stdout, "%s%s\n", name, marker)
		}
		return nil
	case "show":
	case "help", "-h", "--help":
		usage()
		return nil
	default:
		usage()
		return fmt.Errorf("%w: unknown config subcommand %q", errUsage, args[0])
	}

	fs := flag.NewFlagSet("config show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfgArgs listFlag
	fs.Var(&cfgArgs, "c", "config file or shipped config name, or key.path=value override (repeatable; later wins)")
	modelName := fs.String("model", "", "model name, as --model of run")
	asJSON := fs.Bool("json", false, "print JSON instead of YAML")
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, "\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitStatusError{code: exitUsage}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (config files go with -c)", errUsage, fs.Arg(0))
	}
	files, overrides := splitConfigArgs(cfgArgs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	if *modelName != "" {
		cfg.Model.ModelName = *modelName
		cfg.Set("model.model_name", *modelName)
	}
	for _, k := range cfg.Ignored {
		fmt.Fprintf(stderr, "swebench-run: config key %s has no meaning here and is ignored\n", k)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cfg.Dump())
	}
	enc := yaml.NewEncoder(stdout)
	enc.SetIndent(2)
	if err := enc.Encode(cfg.Dump()); err != nil {
		return err
	}
	return enc.Close()
}
