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
	"errors"
	"fmt"
	"net/http"
)

// ErrReadOnly is what every write through a read-only client returns.
var ErrReadOnly = errors.New("refused: this client only reads (plan)")

// ReadOnly returns a client of c's forge, credentials and rate budget
// that sends GETs only: every other request fails with ErrReadOnly before
// it is sent. plan runs the kinds' own code through it and so can never
// change the forge. The check is in the one place every call goes through
// (do), so a method added to the client is refused as soon as it writes.
func ReadOnly(c *Client) *Client {
	ro := *c
	ro.readOnly = true
	return &ro
}

// refuseWrite is do's check: a read-only client sends GETs only.
func (c *Client) refuseWrite(cl call) error {
	if c.readOnly && cl.method != http.MethodGet {
		return fmt.Errorf("%s: %w", cl.op, ErrReadOnly)
	}
	return nil
}
