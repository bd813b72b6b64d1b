package attest

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Coordinate names one exact release of a package: what a community
// attestation is about. Its text form is "<ecosystem>:<package>@<version>",
// the "coordinate" of the signed statement.
type Coordinate struct {
	// Ecosystem is "npm" or "pypi".
	Ecosystem string
	// Package is the npm name (scope included) or the PEP 503 normalised
	// PyPI name.
	Package string
	// Version is one exact version: never a tag, a range or "latest".
	Version string
}

var (
	// npmName is an npm package name, optionally scoped. Upper case is
	// allowed because the registry still serves a few legacy names so.
	npmName = regexp.MustCompile(`^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$`)
	// npmVersion is an exact semantic version (no range, no tag).
	npmVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	// pypiName is a normalised PyPI project name (PEP 503).
	pypiName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
	// pypiRawName is a project name as written before normalisation.
	pypiRawName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	// pypiVersion is one exact PEP 440 version (public part, optional
	// local label); wildcards and ranges do not match.
	pypiVersion = regexp.MustCompile(`^([0-9]+!)?[0-9]+(\.[0-9]+)*((a|b|rc|c|alpha|beta|pre|preview)[0-9]*)?(\.?(post|rev|r)[0-9]*)?(\.?dev[0-9]*)?(\+[a-z0-9]+([._-][a-z0-9]+)*)?$`)
	// pep503Run is the run of separators PEP 503 folds into one "-".
	pep503Run = regexp.MustCompile(`[-_.]+`)
)

// NormalizePyPI returns a PyPI project name as PEP 503 compares it: lower
// case, every run of "-", "_" and "." one "-".
func NormalizePyPI(name string) string {
	return pep503Run.ReplaceAllString(strings.ToLower(name), "-")
}

// ParseCoordinate reads "<ecosystem>:<package>@<version>". A PyPI name is
// normalised; anything not exact is refused.
func ParseCoordinate(s string) (Coordinate, error) {
	eco, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Coordinate{}, fmt.Errorf("coordinate %q: want <ecosystem>:<package>@<version> (npm or pypi)", s)
	}
	// The version follows the last "@": an npm scope starts with one.
	i := strings.LastIndex(rest, "@")
	if i <= 0 {
		return Coordinate{}, fmt.Errorf("coordinate %q: no @<version>", s)
	}
	pkg, ver := rest[:i], rest[i+1:]
	if eco == "pypi" {
		if !pypiRawName.MatchString(pkg) {
			return Coordinate{}, fmt.Errorf("coordinate %q: %q is not a PyPI project name", s, pkg)
		}
		pkg = NormalizePyPI(pkg)
	}
	c := Coordinate{Ecosystem: eco, Package: pkg, Version: ver}
	if err := c.validate(); err != nil {
		return Coordinate{}, fmt.Errorf("coordinate %q: %w", s, err)
	}
	return c, nil
}

// validate checks c's parts: a known ecosystem, a valid name, one exact
// version. Only a valid coordinate becomes a path under a corpus.
func (c Coordinate) validate() error {
	switch c.Ecosystem {
	case "npm":
		if len(c.Package) > 214 || !npmName.MatchString(c.Package) {
			return fmt.Errorf("%q is not an npm package name", c.Package)
		}
		if !npmVersion.MatchString(c.Version) {
			return fmt.Errorf("version %q is not one exact version (no tags, ranges or latest)", c.Version)
		}
	case "pypi":
		if len(c.Package) > 214 || !pypiName.MatchString(c.Package) {
			return fmt.Errorf("%q is not a normalised PyPI project name", c.Package)
		}
		if len(c.Version) > 128 || !pypiVersion.MatchString(strings.ToLower(c.Version)) {
			return fmt.Errorf("version %q is not one exact version (no wildcards or ranges)", c.Version)
		}
	default:
		return fmt.Errorf("unknown ecosystem %q (npm or pypi)", c.Ecosystem)
	}
	return nil
}

// String is the coordinate's text form, as the signed statement carries it.
func (c Coordinate) String() string { return c.Ecosystem + ":" + c.Package + "@" + c.Version }

// CorpusDir is the coordinate's directory in a community corpus, relative
// to its locks/ directory: "<ecosystem>/<package, "/" as "__">/<version>".
func (c Coordinate) CorpusDir() string {
	return path.Join(c.Ecosystem, strings.ReplaceAll(c.Package, "/", "__"), c.Version)
}

// InferCoordinate reads the coordinate from a launch that names one exact
// version: npx (-y, -p/--package), uvx (--from) or pipx run (--spec). Any
// other launch, a flag it cannot account for, or an unpinned name is an
// error: the caller must then be told the coordinate.
func InferCoordinate(argv []string) (Coordinate, error) {
	if len(argv) == 0 {
		return Coordinate{}, errors.New("no launch command to infer a coordinate from")
	}
	tool := path.Base(strings.ReplaceAll(argv[0], `\`, "/"))
	tool = strings.TrimSuffix(strings.TrimSuffix(tool, ".cmd"), ".exe")
	switch tool {
	case "npx":
		return inferNpx(argv[1:])
	case "uvx":
		return inferPyPI("uvx", argv[1:], "--from", uvxValueFlags, uvxBoolFlags, true)
	case "pipx":
		if len(argv) < 2 || argv[1] != "run" {
			return Coordinate{}, errors.New("pipx launches a pinned package only as 'pipx run --spec NAME==VERSION'")
		}
		return inferPyPI("pipx run", argv[2:], "--spec", pipxValueFlags, pipxBoolFlags, false)
	}
	return Coordinate{}, fmt.Errorf("launch %q is not npx, uvx or pipx run with an exact version", tool)
}

// flag splits "--name=value" and reports whether a is a flag at all.
func flag(a string) (name, value string, hasValue, isFlag bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(a, "=")
	return name, value, hasValue, true
}

var npxBoolFlags = map[string]bool{"-y": true, "--yes": true, "-q": true, "--quiet": true, "--no": true, "--no-install": false}

func inferNpx(args []string) (Coordinate, error) {
	var specs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if len(specs) == 0 && i+1 < len(args) {
				specs = append(specs, args[i+1])
			}
			break
		}
		name, value, hasValue, isFlag := flag(a)
		if !isFlag {
			if len(specs) == 0 {
				specs = append(specs, a)
			}
			break // the rest is the command's own arguments
		}
		switch {
		case name == "-p" || name == "--package":
			if !hasValue {
				if i+1 >= len(args) {
					return Coordinate{}, fmt.Errorf("npx %s needs a package", name)
				}
				i++
				value = args[i]
			}
			specs = append(specs, value)
		case npxBoolFlags[name] && !hasValue:
		default:
			return Coordinate{}, fmt.Errorf("npx flag %q: cannot tell the package it runs", name)
		}
	}
	if len(specs) != 1 {
		return Coordinate{}, fmt.Errorf("npx names %d packages; want exactly one pinned package", len(specs))
	}
	spec := specs[0]
	i := strings.LastIndex(spec, "@")
	if i <= 0 {
		return Coordinate{}, fmt.Errorf("npx package %q has no exact @version", spec)
	}
	c := Coordinate{Ecosystem: "npm", Package: spec[:i], Version: spec[i+1:]}
	if err := c.validate(); err != nil {
		return Coordinate{}, fmt.Errorf("npx package %q: %w", spec, err)
	}
	return c, nil
}

var (
	uvxValueFlags = map[string]bool{"--with": true, "--with-editable": true, "--with-requirements": true, "--python": true, "-p": true,
		"--index": true, "--index-url": true, "--extra-index-url": true, "--default-index": true, "--find-links": true, "-f": true,
		"--cache-dir": true, "--directory": true, "--project": true, "--config-file": true, "--constraints": true, "--overrides": true,
		"--env-file": true, "--python-preference": true}
	uvxBoolFlags = map[string]bool{"-q": true, "--quiet": true, "-v": true, "--verbose": true, "--isolated": true, "--offline": true,
		"--no-cache": true, "-n": true, "--native-tls": true, "--no-progress": true, "--no-config": true, "--no-python-downloads": true}
	pipxValueFlags = map[string]bool{"--python": true, "--pip-args": true, "--index-url": true, "-i": true}
	pipxBoolFlags  = map[string]bool{"--no-cache": true, "--verbose": true, "-v": true, "--quiet": true, "-q": true, "--system-site-packages": true}
)

// inferPyPI reads a uvx or pipx run launch: the requirement of fromFlag
// when given, else the first argument. allowAt accepts uvx's "pkg@1.0".
func inferPyPI(tool string, args []string, fromFlag string, valueFlags, boolFlags map[string]bool, allowAt bool) (Coordinate, error) {
	var req string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if req == "" && i+1 < len(args) {
				req = args[i+1]
			}
			break
		}
		name, value, hasValue, isFlag := flag(a)
		if !isFlag {
			if req == "" {
				req = a
			}
			break
		}
		switch {
		case name == fromFlag:
			if !hasValue {
				if i+1 >= len(args) {
					return Coordinate{}, fmt.Errorf("%s %s needs a requirement", tool, name)
				}
				i++
				value = args[i]
			}
			if req != "" {
				return Coordinate{}, fmt.Errorf("%s names %s twice", tool, fromFlag)
			}
			req = value
		case valueFlags[name]:
			if !hasValue {
				i++
			}
		case boolFlags[name] && !hasValue:
		default:
			return Coordinate{}, fmt.Errorf("%s flag %q: cannot tell the package it runs", tool, name)
		}
	}
	if req == "" {
		return Coordinate{}, fmt.Errorf("%s names no package", tool)
	}
	name, ver, ok := strings.Cut(req, "==")
	if !ok && allowAt {
		name, ver, ok = strings.Cut(req, "@")
	}
	if !ok || strings.HasPrefix(ver, "=") {
		return Coordinate{}, fmt.Errorf("%s requirement %q has no exact ==version", tool, req)
	}
	// Extras select optional dependencies, not another release.
	if j := strings.IndexByte(name, '['); j >= 0 {
		if !strings.HasSuffix(name, "]") {
			return Coordinate{}, fmt.Errorf("%s requirement %q: bad extras", tool, req)
		}
		name = name[:j]
	}
	if !pypiRawName.MatchString(name) {
		return Coordinate{}, fmt.Errorf("%s requirement %q: %q is not a PyPI project name", tool, req, name)
	}
	c := Coordinate{Ecosystem: "pypi", Package: NormalizePyPI(name), Version: ver}
	if err := c.validate(); err != nil {
		return Coordinate{}, fmt.Errorf("%s requirement %q: %w", tool, req, err)
	}
	return c, nil
}
