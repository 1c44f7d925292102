package kube

// KustomizeConfig is the base's kustomize configuration file.
const KustomizeConfig = "kustomizeconfig.yaml"

// kustomizeConfig teaches kustomize where a FlinkDeployment names a
// Secret, a ConfigMap, a claim and its images (kustomize knows only
// Kubernetes' own kinds): without it the generated Secret's hash suffix
// and an overlay's name prefix or registry reach every workload but the
// Flink pods (issue: "secret lab-env not found" in every Flink pod).
// TestOverlayResolves builds the base under an overlay and checks every
// reference.
const kustomizeConfig = `nameReference:
- kind: Secret
  version: v1
  fieldSpecs:
  - kind: FlinkDeployment
    path: spec/podTemplate/spec/containers/env/valueFrom/secretKeyRef/name
  - kind: FlinkDeployment
    path: spec/podTemplate/spec/initContainers/env/valueFrom/secretKeyRef/name
- kind: ConfigMap
  version: v1
  fieldSpecs:
  - kind: FlinkDeployment
    path: spec/podTemplate/spec/volumes/configMap/name
- kind: PersistentVolumeClaim
  version: v1
  fieldSpecs:
  - kind: FlinkDeployment
    path: spec/podTemplate/spec/volumes/persistentVolumeClaim/claimName
images:
- kind: FlinkDeployment
  path: spec/image
- kind: FlinkDeployment
  path: spec/podTemplate/spec/containers/image
- kind: FlinkDeployment
  path: spec/podTemplate/spec/initContainers/image
`
