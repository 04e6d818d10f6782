#include "frameworks/torch_task_code.h"

#include "frameworks/script_text.h"

namespace wb {

std::string torchTaskProbability(Task task, const ExecutionSettings& run) {
    if (task == Task::Multiclass && run.loss == LossKind::SigmoidBce)
        return "        self.probability = nn.Softmax(dim=1)  # loss=sigmoid_bce: the model ends in a Softmax\n";
    return "";
}

std::string torchTaskReturn(Task task, const ExecutionSettings& run) {
    if (task == Task::Regression) return "        return x  # the prediction of the standardised target\n";
    return run.loss == LossKind::SigmoidBce
               ? "        return self.probability(x)\n"
               : "        return x  # logits: CrossEntropyLoss applies the log-softmax inside\n";
}

std::string torchTaskLoss(const RunConfig& c, const ExecutionSettings& run, Task task) {
    if (task == Task::Regression)
        return c.model.regressionLoss == RegressionLoss::Huber
                   ? "    loss_fn = nn.HuberLoss(delta=1.0)  # a regression: Huber on the standardised target\n"
                   : "    loss_fn = nn.MSELoss()  # a regression: the mean squared error on the standardised target\n";
    // The labels arrive as (B, 1) floats, as a binary loop's do; the class index is their integer.
    if (!c.model.classWeights.values.empty()) {
        // weight=: the batch's loss is sum w[y] l / sum w[y], its mean over the rows' weights.
        std::string s = "    class_weight = torch.tensor(" + pyFloatList(c.model.classWeights.values) +
                        ", device=device)  # --class-weights, in the class order\n";
        s += run.loss == LossKind::SigmoidBce
                 ? "    nll = nn.NLLLoss(weight=class_weight)  # loss=sigmoid_bce: the log of the model's Softmax "
                   "output, then NLLLoss\n\n"
                   "    def loss_fn(outputs, targets):  # targets (B, 1): the class index as a float\n"
                   "        return nll(torch.log(outputs), targets.view(-1).long())\n"
                 : "    cross_entropy = nn.CrossEntropyLoss(weight=class_weight)  # loss=bce_with_logits: log-softmax "
                   "and NLLLoss fused\n\n"
                   "    def loss_fn(outputs, targets):  # targets (B, 1): the class index as a float\n"
                   "        return cross_entropy(outputs, targets.view(-1).long())\n";
        return s +
               "    loss_fn.class_weight = class_weight  # train_epoch weighs each batch's loss by its sum of w[y]\n";
    }
    if (run.loss == LossKind::SigmoidBce)
        return "    nll = nn.NLLLoss()  # loss=sigmoid_bce: the log of the model's Softmax output, then NLLLoss\n\n"
               "    def loss_fn(outputs, targets):  # targets (B, 1): the class index as a float\n"
               "        return nll(torch.log(outputs), targets.view(-1).long())\n";
    return "    cross_entropy = nn.CrossEntropyLoss()  # loss=bce_with_logits: log-softmax and NLLLoss fused\n\n"
           "    def loss_fn(outputs, targets):  # targets (B, 1): the class index as a float\n"
           "        return cross_entropy(outputs, targets.view(-1).long())\n";
}

std::string torchTaskWeightSum(const ExecutionSettings& run, bool weighted) {
    if (!weighted) return "";
    return run.launch == Launch::EagerSync
               ? "    weight_sum = 0.0  # class weights: the sum of the rows' w[y]\n"
               : "    weight_sum = torch.zeros((), dtype=torch.float64, device=device)  # the sum of the rows' w[y]\n";
}

std::string torchTaskTrainSums(const ExecutionSettings& run, Task task, bool weighted) {
    const bool sync = run.launch == Launch::EagerSync;
    if (task == Task::Multiclass && weighted) {
        // Each batch's weighted mean times its sum of w[y] adds up to sum w l over the epoch; the
        // epoch's loss_sum is its weighted mean times its rows, so loss_sum / samples is the
        // weighted mean the workbench reports (CrossEntropyLoss(weight=w) over the epoch's rows).
        const std::string weight =
            "        weight = loss_fn.class_weight[targets.view(-1).long()].sum().double()  # the batch's sum of "
            "w[y]\n";
        if (sync)
            return weight +
                   "        loss_sum += loss.item() * weight.item()\n"
                   "        weight_sum += weight.item()\n"
                   "        correct += int((outputs.argmax(1) == targets.view(-1).long()).sum().item())\n"
                   "    return loss_sum / weight_sum * samples, correct, samples\n";
        return weight +
               "        loss_sum += loss.detach().double() * weight\n"
               "        weight_sum += weight\n"
               "        correct += (outputs.detach().argmax(1) == targets.view(-1).long()).sum()\n"
               "    return (loss_sum / weight_sum).item() * samples, int(correct.item()), samples\n";
    }
    if (task == Task::Multiclass) {
        if (sync)
            return "        loss_sum += loss.item() * rows\n"
                   "        correct += int((outputs.argmax(1) == targets.view(-1).long()).sum().item())\n"
                   "    return loss_sum, correct, samples\n";
        return "        loss_sum += loss.detach().double() * rows\n"
               "        correct += (outputs.detach().argmax(1) == targets.view(-1).long()).sum()\n"
               "    return loss_sum.item(), int(correct.item()), samples\n";
    }
    // A regression: the sums of squared and absolute errors, in the standardised target's units.
    if (sync)
        return "        loss_sum += loss.item() * rows\n"
               "        errors = outputs.detach().float() - targets\n"
               "        squared += (errors * errors).sum().item()\n"
               "        absolute += errors.abs().sum().item()\n"
               "    return loss_sum, 0, samples, squared, absolute\n";
    return "        loss_sum += loss.detach().double() * rows\n"
           "        errors = outputs.detach().float() - targets\n"
           "        squared += (errors * errors).sum().double()\n"
           "        absolute += errors.abs().sum().double()\n"
           "    return loss_sum.item(), 0, samples, squared.item(), absolute.item()\n";
}

std::string torchTaskEvaluateSums(Task task) {
    if (task == Task::Multiclass)
        return "        correct = int((outputs.argmax(1) == y.view(-1).long()).sum().item())\n"
               "    return loss, correct\n";
    return "        errors = outputs - y\n"
           "        squared, absolute = (errors * errors).sum().item(), errors.abs().sum().item()\n"
           "    return loss, 0, squared, absolute\n";
}

}  // namespace wb
