// Registration entry points of the Recurrent family (RNN, GRU, LSTM) and of the operators it hosts for now
// (Einsum, Det).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::recurrent {

void RegisterRnnOps(KernelRegistry& registry);  // RNN, GRU, LSTM
void RegisterEinsumOps(KernelRegistry& registry);
void RegisterDetOps(KernelRegistry& registry);

}  // namespace onyx::ops::recurrent
