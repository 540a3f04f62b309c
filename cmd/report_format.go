/*
Copyright 2026 The forge-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cmd

// How report prints: an aligned table for a terminal, Markdown for a CI
// job's summary ($GITHUB_STEP_SUMMARY). Both show the same columns, a
// totals row and the failing repositories.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// reportMessage is how much of a failure's message report prints: status
// holds up to a kilobyte, which would make a table row unreadable.
const reportMessage = 120

// noCount and pending are what a set not observed yet shows for each
// count and for Ready (and noCount a list line's missing cell).
const (
	noCount = "-"
	pending = "pending"
)

var reportColumns = []string{"NAMESPACE", "ORGANIZATION", "KIND", "SET", "SELECTED", "IN SYNC", "FAILING", "PENDING REMOVALS", "YIELDED", "READY"}

// cells are the set's row: its counts, or noCount while it is pending.
func (s setRow) cells() []string {
	row := []string{s.namespace, s.organization, s.kind, s.name}
	if !s.observed {
		for range 5 {
			row = append(row, noCount)
		}
		return append(row, pending)
	}
	ready := s.ready
	if s.stalled {
		ready += " (Stalled)"
	}
	for _, n := range []int32{s.selected, s.inSync, s.failing, s.removals, s.yielded} {
		row = append(row, strconv.Itoa(int(n)))
	}
	return append(row, ready)
}

// cells are the totals row; first is its first cell.
func (t totals) cells(first string) []string {
	var state []string
	if t.pending > 0 {
		state = append(state, fmt.Sprintf("%d %s", t.pending, pending))
	}
	if t.stalled > 0 {
		state = append(state, fmt.Sprintf("%d Stalled", t.stalled))
	}
	row := []string{first, plural(t.namespaces, "namespace", "namespaces"), "", plural(t.sets, "set", "sets")}
	for _, n := range []int64{t.selected, t.inSync, t.failing, t.removals, t.yield} {
		row = append(row, strconv.FormatInt(n, 10))
	}
	return append(row, strings.Join(state, ", "))
}

// failureLine is one line of the failing list: a repository, or the set
// itself when it is Stalled with no repository failing (its Ready says
// why: repository is empty), or how many more repositories fail than
// status shows (more).
type failureLine struct {
	set, repository, reason, message string
	more                             int
}

// failureLines are the failing sets' lines, in the report's order.
func (r *report) failureLines() []failureLine {
	var out []failureLine
	for _, s := range r.sets {
		if !s.isFailing() {
			continue
		}
		set := s.kind + " " + s.namespace + "/" + s.name
		if len(s.failures) == 0 {
			out = append(out, failureLine{set: set, reason: s.ready, message: s.message})
			continue
		}
		for _, f := range s.failures {
			out = append(out, failureLine{set: set, repository: f.Repository, reason: f.Reason, message: f.Message})
		}
		if more := int(s.failing) - len(s.failures); more > 0 {
			out = append(out, failureLine{set: set, more: more})
		}
	}
	return out
}

func (r *report) where() string {
	if r.namespace == "" {
		return "in any namespace"
	}
	return "in namespace " + r.namespace
}

// writeTable prints the sets as aligned columns, a totals row, then the
// failing repositories.
func (r *report) writeTable(w io.Writer) error {
	if len(r.sets) == 0 {
		_, err := fmt.Fprintf(w, "No RepositorySet, FileSet, LabelSet or BranchProtectionSet %s.\n", r.where())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(cells ...string) { _, _ = fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	line(reportColumns...)
	for _, s := range r.sets {
		line(s.cells()...)
	}
	t := r.totals()
	line(t.cells("TOTAL")...)
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := r.failureLines()
	if len(lines) == 0 {
		_, err := fmt.Fprintln(w, "\nFailing: none.")
		return err
	}
	_, _ = fmt.Fprintln(w, "\nFailing:")
	line("SET", "REPOSITORY", "REASON", "MESSAGE")
	for _, l := range lines {
		switch {
		case l.more > 0:
			line(l.set, fmt.Sprintf("and %d more", l.more), noCount, "status lists the first failing repositories only")
		case l.repository == "":
			line(l.set, noCount, l.reason, oneLine(l.message))
		default:
			line(l.set, l.repository, l.reason, oneLine(l.message))
		}
	}
	return tw.Flush()
}

// writeMarkdown prints the same as writeTable as a Markdown table and a
// list, for a CI job's summary.
func (r *report) writeMarkdown(w io.Writer) error {
	title := "### Compliance of namespace " + mdCell(r.namespace)
	if r.namespace == "" {
		title = "### Compliance of every namespace"
	}
	var b strings.Builder
	b.WriteString(title + "\n\n")
	if len(r.sets) == 0 {
		fmt.Fprintf(&b, "No RepositorySet, FileSet, LabelSet or BranchProtectionSet %s.\n", r.where())
		_, err := io.WriteString(w, b.String())
		return err
	}
	row := func(cells []string) {
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	header := make([]string, len(reportColumns))
	for i, c := range reportColumns {
		header[i] = strings.ToUpper(c[:1]) + strings.ToLower(c[1:])
	}
	row(header)
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range r.sets {
		row(s.cells())
	}
	t := r.totals()
	total := t.cells("Total")
	for i := range total {
		total[i] = mdCell(total[i])
		if total[i] != "" {
			total[i] = "**" + total[i] + "**"
		}
	}
	b.WriteString("| " + strings.Join(total, " | ") + " |\n")
	lines := r.failureLines()
	if len(lines) == 0 {
		b.WriteString("\nNo set is failing.\n")
	} else {
		b.WriteString("\n#### Failing\n")
		set := ""
		for _, l := range lines {
			if l.set != set {
				set = l.set
				fmt.Fprintf(&b, "\n- **%s**\n", mdCell(set))
			}
			switch {
			case l.more > 0:
				fmt.Fprintf(&b, "  - and %d more\n", l.more)
				continue
			case l.repository == "":
				fmt.Fprintf(&b, "  - %s", mdCell(l.reason))
			default:
				fmt.Fprintf(&b, "  - %s: %s", mdCell(l.repository), mdCell(l.reason))
			}
			if m := oneLine(l.message); m != "" {
				b.WriteString(": " + mdCell(m))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscaper escapes what Markdown would read in a cell or a list item
// (every one is ASCII punctuation, which a backslash makes literal) and
// puts a message on one line: a table row ends at a line break.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "&", `\&`, "~", `\~`, "#", `\#`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

func mdCell(s string) string { return mdEscaper.Replace(s) }

// oneLine is a message on one line, at most reportMessage runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= reportMessage {
		return s
	}
	return string([]rune(s)[:reportMessage-1]) + "…"
}

// plural is n with its noun in the number's grammar.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
