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

package forge

import (
	"context"
	"strings"
)

// Labels of an organization or a repository, GET|POST {scope}/labels and
// GET|PATCH|DELETE .../labels/{id}; the contract suite
// (contract_labels_test.go) holds their behaviour on the fake and the live
// releases.

// Label mirrors the forge's Label object. Color comes back as six
// lower-case hex digits without '#'.
type Label struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Exclusive   bool   `json:"exclusive"`
	IsArchived  bool   `json:"is_archived"`
	URL         string `json:"url"`
}

// NormalizeColor gives a colour as the forge returns it: six lower-case hex
// digits without '#' ("#ABC" -> "aabbcc").
func NormalizeColor(c string) string {
	c = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(c), "#"))
	if len(c) == 3 {
		c = string([]byte{c[0], c[0], c[1], c[1], c[2], c[2]})
	}
	return c
}

// CreateLabelOption is the body of POST .../labels. Color may be #rgb or
// #rrggbb, with or without '#', any case. Organization labels ignore
// IsArchived on create.
type CreateLabelOption struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description,omitempty"`
	Exclusive   bool   `json:"exclusive,omitempty"`
	IsArchived  bool   `json:"is_archived,omitempty"`
}

// EditLabelOption is the body of PATCH .../labels/{id}. IsArchived is always
// sent because the forge un-archives a label when it is omitted; the other
// fields change only when non-nil.
type EditLabelOption struct {
	Name        *string `json:"name,omitempty"`
	Color       *string `json:"color,omitempty"`
	Description *string `json:"description,omitempty"`
	Exclusive   *bool   `json:"exclusive,omitempty"`
	IsArchived  bool    `json:"is_archived"`
}

// LabelsClient manages labels of a repository or an organization.
type LabelsClient interface {
	ListLabels(ctx context.Context, scope Scope) ([]Label, error)
	GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error)
	CreateLabel(ctx context.Context, scope Scope, opt CreateLabelOption) (*Label, error)
	EditLabel(ctx context.Context, scope Scope, id int64, opt EditLabelOption) (*Label, error)
	// DeleteLabel succeeds for an unknown id (the forge answers 204).
	DeleteLabel(ctx context.Context, scope Scope, id int64) error
}

var _ LabelsClient = (*Client)(nil)

var labels = declare(&resource[Label]{noun: "label", plural: "labels", path: "/labels", item: "/{id}",
	key: func(l Label) int64 { return l.ID }})

func (o *Label) forgeID() int64 { return o.ID }

// ListLabels implements LabelsClient.
func (c *Client) ListLabels(ctx context.Context, scope Scope) ([]Label, error) {
	return labels.list(ctx, c, scope)
}

// GetLabel implements LabelsClient.
func (c *Client) GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error) {
	return labels.get(ctx, c, scope, id)
}

// CreateLabel implements LabelsClient.
func (c *Client) CreateLabel(ctx context.Context, scope Scope, opt CreateLabelOption) (*Label, error) {
	return labels.create(ctx, c, scope, labels.one(opt.Name), opt)
}

// EditLabel implements LabelsClient.
func (c *Client) EditLabel(ctx context.Context, scope Scope, id int64, opt EditLabelOption) (*Label, error) {
	return labels.edit(ctx, c, scope, id, opt)
}

// DeleteLabel implements LabelsClient.
func (c *Client) DeleteLabel(ctx context.Context, scope Scope, id int64) error {
	return labels.delete(ctx, c, scope, id)
}

// ---- cached through Snapshots: one listing per scope ----

func (s *Snapshots) ListLabels(ctx context.Context, scope Scope) ([]Label, error) {
	return listIn(ctx, s, labels, scope, s.Interface.ListLabels)
}

func (s *Snapshots) GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error) {
	return getIn(ctx, s, labels, scope, id, s.Interface.GetLabel, s.ListLabels)
}

func (s *Snapshots) CreateLabel(ctx context.Context, scope Scope, opt CreateLabelOption) (*Label, error) {
	return labels.cache(s).answer(scope)(s.Interface.CreateLabel(ctx, scope, opt))
}

func (s *Snapshots) EditLabel(ctx context.Context, scope Scope, id int64, opt EditLabelOption) (*Label, error) {
	return labels.cache(s).answer(scope)(s.Interface.EditLabel(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteLabel(ctx context.Context, scope Scope, id int64) error {
	return labels.cache(s).deleted(scope, id)(s.Interface.DeleteLabel(ctx, scope, id))
}
