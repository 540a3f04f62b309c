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

package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The accessors below let the shared reconcile loop treat every managed
// kind alike (see Managed).

var (
	_ Managed = &Organization{}
	_ Managed = &OrgHook{}
	_ Managed = &Label{}
	_ Managed = &Project{}
	_ Managed = &RunnerSetting{}
)

// effective returns p, or def when p is unset (an object read before the schema default applied).
func effective(p, def DeletionPolicy) DeletionPolicy {
	if p == "" {
		return def
	}
	return p
}

// GetManagedSpec returns the shared spec fields.
func (o *Organization) GetManagedSpec() *ManagedSpec { return &o.Spec.ManagedSpec }

// GetDeletionPolicy returns the deletion policy, Orphan by default.
func (o *Organization) GetDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy, DeletionPolicyOrphan)
}

// GetManagedStatus returns the shared status block.
func (o *Organization) GetManagedStatus() *ManagedStatus { return &o.Status.ManagedStatus }

// GetConditions returns the status conditions.
func (o *Organization) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *Organization) SetConditions(c []metav1.Condition) { o.Status.Conditions = c }

// GetManagedSpec returns the shared spec fields.
func (h *OrgHook) GetManagedSpec() *ManagedSpec { return &h.Spec.ManagedSpec }

// GetDeletionPolicy returns the deletion policy, Delete by default.
func (h *OrgHook) GetDeletionPolicy() DeletionPolicy {
	return effective(h.Spec.DeletionPolicy, DeletionPolicyDelete)
}

// GetManagedStatus returns the shared status block.
func (h *OrgHook) GetManagedStatus() *ManagedStatus { return &h.Status.ManagedStatus }

// GetConditions returns the status conditions.
func (h *OrgHook) GetConditions() []metav1.Condition { return h.Status.Conditions }

// SetConditions replaces the status conditions.
func (h *OrgHook) SetConditions(c []metav1.Condition) { h.Status.Conditions = c }

// GetManagedSpec returns the shared spec fields.
func (l *Label) GetManagedSpec() *ManagedSpec { return &l.Spec.ManagedSpec }

// GetDeletionPolicy returns the deletion policy, Delete by default.
func (l *Label) GetDeletionPolicy() DeletionPolicy {
	return effective(l.Spec.DeletionPolicy, DeletionPolicyDelete)
}

// GetManagedStatus returns the shared status block.
func (l *Label) GetManagedStatus() *ManagedStatus { return &l.Status.ManagedStatus }

// GetConditions returns the status conditions.
func (l *Label) GetConditions() []metav1.Condition { return l.Status.Conditions }

// SetConditions replaces the status conditions.
func (l *Label) SetConditions(c []metav1.Condition) { l.Status.Conditions = c }

// GetManagedSpec returns the shared spec fields.
func (p *Project) GetManagedSpec() *ManagedSpec { return &p.Spec.ManagedSpec }

// GetDeletionPolicy returns the deletion policy, Delete by default.
func (p *Project) GetDeletionPolicy() DeletionPolicy {
	return effective(p.Spec.DeletionPolicy, DeletionPolicyDelete)
}

// GetManagedStatus returns the shared status block.
func (p *Project) GetManagedStatus() *ManagedStatus { return &p.Status.ManagedStatus }

// GetConditions returns the status conditions.
func (p *Project) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions replaces the status conditions.
func (p *Project) SetConditions(c []metav1.Condition) { p.Status.Conditions = c }

// GetManagedSpec returns the shared spec fields.
func (r *RunnerSetting) GetManagedSpec() *ManagedSpec { return &r.Spec.ManagedSpec }

// GetDeletionPolicy returns the deletion policy, Orphan by default.
func (r *RunnerSetting) GetDeletionPolicy() DeletionPolicy {
	return effective(r.Spec.DeletionPolicy, DeletionPolicyOrphan)
}

// GetManagedStatus returns the shared status block.
func (r *RunnerSetting) GetManagedStatus() *ManagedStatus { return &r.Status.ManagedStatus }

// GetConditions returns the status conditions.
func (r *RunnerSetting) GetConditions() []metav1.Condition { return r.Status.Conditions }

// SetConditions replaces the status conditions.
func (r *RunnerSetting) SetConditions(c []metav1.Condition) { r.Status.Conditions = c }
