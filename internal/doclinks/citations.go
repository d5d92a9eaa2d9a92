package doclinks

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The project stands alone: its code and docs cite no file outside the
// repository (a design document or shared folder that users do not have)
// and no work item or change history; history belongs in git log.
var citationPatterns = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`DESIGN\.md`), "a design document outside the repository"},
	{regexp.MustCompile(`\.\./shared\b|/work/[s]hared\b|(^|[\s(])[s]hared/`), "a folder outside the repository"},
	{regexp.MustCompile(`(?i)\bissues? #?[0-9]+`), "an issue number"},
	{regexp.MustCompile(`(?i)\b(this|last|next|previous|that) round\b`), "change history"},
}

// citationFile reports whether path is a source, script or documentation
// file the citation check reads.
func citationFile(path string) bool {
	name := filepath.Base(path)
	switch filepath.Ext(name) {
	case ".go", ".md", ".sh", ".yml", ".yaml", ".txt":
		return true
	}
	return strings.HasPrefix(name, "Caddyfile") || filepath.Base(filepath.Dir(path)) == ".ci"
}

// Citation is one mention of something outside the repository or of the
// project's history.
type Citation struct {
	File string // relative to the root
	Line int    // 1-based
	Text string // what matched
	What string
}

func (c Citation) String() string {
	return fmt.Sprintf("%s:%d: %q cites %s; say the rule itself (history goes in git log)", c.File, c.Line, c.Text, c.What)
}

// Citations reads the code, scripts and docs under root (.git, demo-keys,
// benchmark results and testdata left out; .ci read) and returns every
// citation of a file outside the repository, an issue number or change
// history.
func Citations(root string) ([]Citation, error) {
	var out []Citation
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && skippedDir(name, ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		if !citationFile(path) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		found, err := fileCitations(path, rel)
		out = append(out, found...)
		return err
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, err
}

func fileCitations(path, rel string) ([]Citation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Citation
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		for _, p := range citationPatterns {
			for _, loc := range p.re.FindAllStringIndex(line, -1) {
				// "this round trip" is a journey, not history.
				if rest := line[loc[1]:]; strings.HasPrefix(rest, " trip") || strings.HasPrefix(rest, "-trip") {
					continue
				}
				out = append(out, Citation{File: rel, Line: n, Text: line[loc[0]:loc[1]], What: p.what})
			}
		}
	}
	return out, sc.Err()
}
