"""Texts from the seeds, shared by the tests. Seed 004: the AKS deployment example, verbatim."""

AKS_REFERENCE = """To deploy to AKS:
1. Build your Docker image
2. Push the image to Azure Container Registry
3. Create an AKS cluster using az aks create
4. Configure kubectl to connect to your cluster
5. Create Kubernetes deployment YAML
6. Apply the deployment using kubectl apply"""

AKS_STEPS = [
    "Build your Docker image",
    "Push the image to Azure Container Registry",
    "Create an AKS cluster using az aks create",
    "Configure kubectl to connect to your cluster",
    "Create Kubernetes deployment YAML",
    "Apply the deployment using kubectl apply",
]

AKS_CONTEXTS = [
    "Azure Container Registry (ACR) stores Docker images. Push with: docker push myacr.azurecr.io/myapp:v1",
    "Create AKS cluster: az aks create --resource-group myRG --name myAKS --node-count 3",
    "Kubectl connects to clusters. Get credentials: az aks get-credentials --name myAKS",
]
