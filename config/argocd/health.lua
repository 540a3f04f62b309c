-- Argo CD health of forge.forgeops.dev resources: one script for every kind
-- of the group (argocd-cm.yaml holds it once per kind of config/crd/bases).
--
-- The operator writes kstatus conditions: Ready summarises the last pass,
-- Reconciling is True while it waits for something that changes by itself
-- (a parent, a Secret, the Forge, a transient forge error, a ClusterForge's
-- deletion waiting for the resources that use it), Stalled is True when
-- only a change by the user helps (credentials, a rejected spec, two
-- resources claiming one forge object, a forge without the API, a
-- ClusterForge that does not permit the namespace or owner). Each
-- condition carries the generation it was written for.
--
-- Argo CD runs this with the base, table and package libraries only (no
-- string library) and reads the returned table's status and message.
local hs = {}

local function findCondition(conditions, conditionType)
  for _, c in ipairs(conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

local function isTrue(c)
  return c ~= nil and c.status == "True"
end

-- Ready=False with these reasons means the user has to act; the operator
-- sets Stalled=True with the first four as well, this also covers a status
-- without it. DeleteBlocked (an organization that still owns repositories)
-- is retried, but only the user can unblock it.
local stallingReasons = {
  Unauthorized = true,
  Rejected = true,
  Conflict = true,
  Unsupported = true,
  DeleteBlocked = true,
  -- A LabelSet's Authoritative deletion guard held (maxDeletionsPerRepository).
  TooManyDeletions = true,
  -- A create answered with something that cannot be trusted.
  InvalidForgeAnswer = true,
  -- The ClusterForge named does not let this namespace manage this owner
  -- (or use User): only the platform's tenants entries can change that.
  NotPermitted = true,
}

-- Waiting for something that comes by itself (a parent made in the same
-- sync wave, the Forge, a runner registering, a Secret applied later, a
-- team or user another resource of the sync declares) is progress, never
-- a failure, whatever else the status says.
local waitingReasons = {
  ParentNotFound = true,
  ForgeNotReady = true,
  RunnerNotFound = true,
  SecretNotFound = true,
  TeamNotFound = true,
  UserNotFound = true,
}

-- managementPolicy Observe reports a forge object that is missing or differs
-- from the spec and, by design, never corrects it: nothing is in progress.
local observeReasons = {
  DriftDetected = true,
  NotFound = true,
}

local generation = nil
if obj.metadata ~= nil then
  generation = obj.metadata.generation
end
local status = obj.status or {}
local conditions = status.conditions or {}
local ready = findCondition(conditions, "Ready")
local stalled = findCondition(conditions, "Stalled")
local reconciling = findCondition(conditions, "Reconciling")

local function messageOf(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return fallback
end

-- A condition written for an older generation says nothing about this one.
local function stale(c)
  return generation ~= nil and c.observedGeneration ~= nil and c.observedGeneration < generation
end

-- Suspending is the user's decision: show it at once, before the operator
-- has seen the new generation.
if obj.spec ~= nil and obj.spec.suspend == true then
  hs.status = "Suspended"
  if ready ~= nil and ready.reason == "Suspended" then
    hs.message = messageOf(ready, "spec.suspend is true")
  else
    hs.message = "spec.suspend is true: the operator makes no forge calls for this resource"
  end
  return hs
end

if generation ~= nil and (status.observedGeneration == nil or status.observedGeneration < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to reconcile generation " .. tostring(generation)
  return hs
end

if #conditions == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to report conditions"
  return hs
end

if ready ~= nil and ready.status ~= "True" and not stale(ready) and waitingReasons[ready.reason] then
  hs.status = "Progressing"
  hs.message = messageOf(ready, ready.reason)
  return hs
end

if isTrue(stalled) then
  hs.status = "Degraded"
  hs.message = messageOf(ready, messageOf(stalled, "Stalled"))
  return hs
end

if ready ~= nil and ready.status == "False" and not stale(ready)
    and (stallingReasons[ready.reason] or observeReasons[ready.reason]) then
  hs.status = "Degraded"
  hs.message = messageOf(ready, ready.reason)
  return hs
end

if isTrue(reconciling) then
  hs.status = "Progressing"
  hs.message = messageOf(ready, messageOf(reconciling, "Reconciling"))
  return hs
end

if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end

if stale(ready) then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to reconcile generation " .. tostring(generation)
  return hs
end

if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = messageOf(ready, "Ready")
  return hs
end

if ready.reason == "Suspended" then
  hs.status = "Suspended"
  hs.message = messageOf(ready, "Suspended")
  return hs
end

-- Ready False or Unknown for any other reason: a pass is under way or will
-- be retried.
hs.status = "Progressing"
hs.message = messageOf(ready, "Reconciling")
return hs
