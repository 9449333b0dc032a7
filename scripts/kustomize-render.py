#!/usr/bin/env python3
"""Renders a Kustomize directory to a multi-document YAML stream on stdout, with no kustomize
binary (none is installed here), so `make test` can validate the overlays' output with
kubernetes-validate. Supports what Deploy/kubernetes uses and fails loudly on anything else:
resources (files, or directories with a kustomization.yaml), namespace, labels (pairs),
images (newName/newTag), and patches with a kind/name target that are either JSON 6902
operations (add, replace, remove) or a `$patch: delete`.
Usage: kustomize-render.py DIRECTORY"""
import copy, os, sys
import yaml

KNOWN = {"apiVersion", "kind", "resources", "namespace", "labels", "images", "patches"}


def pointer(path):
    return [part.replace("~1", "/").replace("~0", "~") for part in path.lstrip("/").split("/")]


def apply_op(document, op):
    *parents, last = pointer(op["path"])
    node = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key = int(last) if isinstance(node, list) and last != "-" else last
    if op["op"] == "add":
        if isinstance(node, list):
            node.insert(len(node) if key == "-" else key, op["value"])
        else:
            node[key] = op["value"]
    elif op["op"] == "replace":
        if isinstance(node, dict) and key not in node:
            sys.exit(f"replace of missing path {op['path']}")
        node[key] = op["value"]
    elif op["op"] == "remove":
        del node[key]
    else:
        sys.exit(f"unsupported JSON 6902 op {op['op']}")


def render(directory):
    spec = yaml.safe_load(open(os.path.join(directory, "kustomization.yaml")))
    unknown = set(spec) - KNOWN
    if unknown:
        sys.exit(f"{directory}: unsupported kustomization fields {sorted(unknown)}")
    documents = []
    for resource in spec.get("resources", []):
        path = os.path.normpath(os.path.join(directory, resource))
        if os.path.isdir(path):
            documents += render(path)
        else:
            documents += [d for d in yaml.safe_load_all(open(path)) if d]
    for patch in spec.get("patches", []):
        target = patch["target"]
        matches = [d for d in documents if d["kind"] == target["kind"] and d["metadata"]["name"] == target["name"]]
        if not matches:
            sys.exit(f"{directory}: patch target {target} matches no resource")
        body = yaml.safe_load(patch["patch"])
        for document in matches:
            if isinstance(body, dict) and body.get("$patch") == "delete":
                documents.remove(document)
            elif isinstance(body, list):
                for op in body:
                    apply_op(document, op)
            else:
                sys.exit(f"{directory}: only JSON 6902 patches and $patch: delete are supported")
    for image in spec.get("images", []):
        for document in documents:
            pod = document.get("spec", {}).get("template", {}).get("spec", {})
            for container in pod.get("containers", []) + pod.get("initContainers", []):
                name, _, tag = container["image"].partition(":")
                if name == image["name"]:
                    container["image"] = f"{image.get('newName', name)}:{image.get('newTag', tag or 'latest')}"
    for label in spec.get("labels", []):
        for document in documents:
            document["metadata"].setdefault("labels", {}).update(label["pairs"])
    if "namespace" in spec:
        for document in documents:
            document["metadata"]["namespace"] = spec["namespace"]
    return documents


if __name__ == "__main__":
    yaml.safe_dump_all([copy.deepcopy(d) for d in render(sys.argv[1])], sys.stdout, sort_keys=False)
