// Package doclinks checks the relative links of the repository's Markdown
// files: every link to a file must name one that exists, and every
// #anchor must name a heading of the file it points into, as GitHub
// renders it.
package doclinks

import (
	"bufio"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// linkPattern finds inline links and images, [text](target "title"); the
// target is group 1. Reference definitions are found by refPattern.
var (
	linkPattern    = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+"[^"]*")?\s*\)`)
	refPattern     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	headingPattern = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	codeSpan       = regexp.MustCompile("`+[^`]*`+")
	htmlAnchor     = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// Problem is one broken link.
type Problem struct {
	File   string // the Markdown file, relative to the root
	Line   int    // 1-based
	Target string // the link as written
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: link %q: %s", p.File, p.Line, p.Target, p.Reason)
}

// Check reads every .md file under root (hidden folders, testdata and
// demo-keys left out) and returns the broken relative links, sorted.
func Check(root string) ([]Problem, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && skippedDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		a, err := Anchors(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = a
		return a, nil
	}
	var problems []Problem
	for _, file := range files {
		links, err := Links(file)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range links {
			if reason := checkLink(file, l.Target, anchorsOf); reason != "" {
				problems = append(problems, Problem{File: filepath.ToSlash(rel), Line: l.Line, Target: l.Target, Reason: reason})
			}
		}
	}
	sort.Slice(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return problems, nil
}

// checkLink says what is wrong with target, a link in file, or "".
func checkLink(file, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if target == "" {
		return "empty link"
	}
	if u, err := url.Parse(target); err == nil && (u.Scheme != "" || strings.HasPrefix(target, "//")) {
		return "" // absolute: not checked here
	}
	path, anchor, _ := strings.Cut(target, "#")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	dest := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "an absolute path: write it relative to the file"
		}
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		if _, err := os.Stat(dest); err != nil {
			return "no such file or folder"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	a, err := anchorsOf(dest)
	if err != nil {
		return err.Error()
	}
	if !a[anchor] {
		return fmt.Sprintf("no heading with the anchor #%s in %s", anchor, filepath.Base(dest))
	}
	return ""
}

// Link is one link target and the line it is on.
type Link struct {
	Line   int
	Target string
}

// Links returns the link targets of a Markdown file, leaving out fenced
// code blocks and code spans.
func Links(path string) ([]Link, error) {
	var links []Link
	err := eachLine(path, func(n int, line string) {
		if m := refPattern.FindStringSubmatch(line); m != nil {
			links = append(links, Link{n, m[1]})
			return
		}
		for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, "``"), -1) {
			links = append(links, Link{n, m[1]})
		}
	})
	return links, err
}

// Anchors returns the anchors of a Markdown file: its headings' slugs as
// GitHub makes them (a repeated slug gets -1, -2, ...) and the names of
// <a name="..."> and id="..." tags.
func Anchors(path string) (map[string]bool, error) {
	anchors := map[string]bool{}
	seen := map[string]int{}
	err := eachLine(path, func(_ int, line string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingPattern.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := Slug(m[2])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors, err
}

// inlineLink is a link inside a heading: its text is what is rendered.
var inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug is GitHub's anchor for a heading's text: the rendered text in lower
// case, without anything but letters, digits, spaces, hyphens and
// underscores, spaces made hyphens.
func Slug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// eachLine calls fn with each line of a Markdown file outside fenced code
// blocks, numbered from 1.
func eachLine(path string, fn func(n int, line string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 1<<20)
	fence := ""
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			for _, c := range trimmed[3:] {
				if c != rune(fence[0]) {
					break
				}
				fence += string(c)
			}
			continue
		}
		fn(n, line)
	}
	return s.Err()
}

// skippedDir reports whether a walk of the repository leaves out the
// folder name: hidden folders (.git among them) but those in keep,
// testdata, demo-keys and benchmark results.
func skippedDir(name string, keep ...string) bool {
	if slices.Contains(keep, name) {
		return false
	}
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "demo-keys" || name == "results"
}
